import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCOUNT_LIBRARY_MAX_AGE_MS, refreshAccountLibrary } from "../../src/library/account-check.ts";
import { selectLibrary } from "../../src/library/selection.ts";
import { Config } from "../../src/config/schema.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { getInstanceLibrary, setInstanceLibrary } from "../../src/store/instance-library.ts";
import { listLogins, saveLogin } from "../../src/store/logins.ts";
import { type Instance, startInstance } from "../support/instance.ts";

let db: Db;
let dir: string;
let instance: Instance | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-libacct-"));
  db = openDb(join(dir, "lembas.db"));
});
afterEach(async () => {
  await instance?.close();
  instance = null;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (library?: "local" | "lembas") => Config.parse(library ? { library } : {});

function login(name: string, library: boolean | null): void {
  const url = `https://${name}.example`;
  saveLogin(db, { name, url, token: `tok-${name}`, protocols: [1] });
  if (library !== null) setInstanceLibrary(db, url, { library, how: "scope" });
}

describe("which library, with the logins", () => {
  test("one login with the library: its; one without: the device's; library: local written: the device's", () => {
    login("a", false);
    expect(selectLibrary(config(), db)).toEqual({ choice: "local" });
    login("b", true);
    expect(selectLibrary(config(), db)).toMatchObject({ choice: "lembas", login: { name: "b" } });
    expect(selectLibrary(config("local"), db)).toEqual({ choice: "local" });
  });

  test("several logins with the library: none unasked (a note); library: lembas takes the first logged in, and says so", () => {
    login("a", true);
    login("b", true);
    expect(selectLibrary(config(), db)).toEqual({ choice: "local", note: "the logins a, b each have the account's library, so none is used unasked: library: lembas in config.yaml uses the first (a)" });
    expect(selectLibrary(config("lembas"), db)).toMatchObject({ choice: "lembas", login: { name: "a" }, note: "the logins a, b each have the account's library: a's, the first logged in, is used" });
  });

  test("library: lembas and no login that has it (or none checked yet): the problem", () => {
    login("a", null);
    expect(selectLibrary(config("lembas"), db)).toMatchObject({ choice: "lembas", login: null, problem: expect.stringContaining("no login's token has the library scope") });
  });
});

describe("the kept answer", () => {
  test("checked when missing or a day old; a check that cannot tell keeps the copy", async () => {
    instance = await startInstance({ token: "tok", tokenScopes: ["library"] });
    saveLogin(db, { name: "acct", url: instance.url, token: "tok", protocols: [1] });
    const logins = listLogins(db);
    const first = await refreshAccountLibrary(db, logins, { now: 1_000 });
    expect(first.map((r) => r.check)).toEqual([{ found: { library: true, how: "scope" } }]);
    expect(getInstanceLibrary(db, instance.url)).toEqual({ library: true, how: "scope", checkedAt: 1_000 });
    expect(await refreshAccountLibrary(db, logins, { now: 2_000 })).toEqual([]);
    await instance.stop();
    const later = await refreshAccountLibrary(db, logins, { now: 1_000 + ACCOUNT_LIBRARY_MAX_AGE_MS + 1 });
    expect(later[0]?.check).toMatchObject({ unknown: expect.stringContaining("could not be reached") });
    expect(getInstanceLibrary(db, instance.url)).toEqual({ library: true, how: "scope", checkedAt: 1_000 });
  });
});
