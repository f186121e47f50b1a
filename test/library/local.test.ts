import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Config } from "../../src/config/schema.ts";
import { embeddingTarget, type EmbeddingTarget } from "../../src/library/embedding-target.ts";
import { addFiles, QUIET } from "../../src/library/indexer.ts";
import { LocalLibrary } from "../../src/library/local.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { removeDocument } from "../../src/store/library.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

let dir: string;
let model: ScriptedModel;
let target: EmbeddingTarget;
let db: Db;
let other: Db;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-library-"));
  model = await startModel();
  const made = embeddingTarget(Config.parse({ connections: { test: { base_url: model.url } }, embedding: "test/e" }), [], {});
  if (!made.ok) throw new Error(made.error);
  target = made.value;
  db = openDb(join(dir, "lembas.db"));
  other = openDb(join(dir, "lembas.db"));
});
afterEach(async () => {
  db.close();
  other.close();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

async function add(on: Db, name: string, text: string): Promise<void> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const summary = await addFiles({ db: on, target, reporter: QUIET }, [path], new Set([path]));
  expect(summary.stopped).toBeNull();
}

describe("the local library's vectors in memory", () => {
  test("a change made by another connection (another process) is seen by the next search", async () => {
    const library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    await add(db, "a.md", "apples and pears\n");
    expect((await library.search("apples", 5, AbortSignal.timeout(5000)))[0]?.path).toBe(join(dir, "a.md"));
    await add(other, "b.md", "submarine periscope depth\n");
    const found = await library.search("periscope depth", 5, AbortSignal.timeout(5000));
    expect(found[0]?.path).toBe(join(dir, "b.md"));
    expect(removeDocument(other, join(dir, "b.md"))).toBe(true);
    const after = await library.search("periscope depth", 5, AbortSignal.timeout(5000));
    expect(after.map((p) => p.path)).toEqual([join(dir, "a.md")]);
  });

  test("a query whose vector has another dimension than the library's is refused with a sentence", async () => {
    const library = new LocalLibrary(db, () => ({ ok: true, value: target }));
    await add(db, "a.md", "apples\n");
    model.setEmbeddings({ dimension: 16 });
    await expect(library.search("apples", 5, AbortSignal.timeout(5000))).rejects.toThrow("returned vectors of 16 dimensions where 64 were expected");
  });
});
