import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";

let dir = "";
const home = process.cwd();

afterEach(() => {
  process.chdir(home);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a store held in memory", () => {
  test('openDb(":memory:") (doctor without a database) leaves no file named ":memory:" where it runs', () => {
    dir = mkdtempSync(join(tmpdir(), "lembas-memory-"));
    process.chdir(dir);
    const db = openDb(":memory:");
    db.exec("CREATE TABLE probe (x)");
    db.close();
    expect(existsSync(join(dir, ":memory:"))).toBe(false);
  });
});
