import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb, type Db } from "../../src/store/db.ts";
import { deleteLogin, saveLogin, setLoginProviders } from "../../src/store/logins.ts";
import { LoginsWatch } from "../../src/store/logins-watch.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let db: Db;
/** Another process's connection to the same store (a `lembas login` or `logout` in another shell). */
let other: Db;
beforeEach(() => {
  box = sandbox();
  const file = join(box.stateDir, "lembas.db");
  db = openDb(file);
  other = openDb(file);
});
afterEach(() => {
  other.close();
  db.close();
  box.cleanup();
});

const INST = { name: "inst", url: "http://127.0.0.1:9", token: "token-a", protocols: [1, 2] };

test("the same logins while nothing changed them; another connection's login, new token and logout are each seen", () => {
  const watch = new LoginsWatch(db);
  const none = watch.current();
  expect(none).toEqual([]);
  expect(watch.current()).toBe(none);

  saveLogin(other, INST);
  const one = watch.current();
  expect(one.map((l) => [l.name, l.token])).toEqual([["inst", "token-a"]]);
  expect(watch.current()).toBe(one);

  saveLogin(other, { ...INST, token: "token-b" });
  const renewed = watch.current();
  expect(renewed.map((l) => l.token)).toEqual(["token-b"]);

  deleteLogin(other, "inst");
  expect(watch.current()).toEqual([]);
});

test("a change made on the watch's own connection is seen too; the providers kept for a login are no change", () => {
  const watch = new LoginsWatch(db);
  watch.current();
  saveLogin(db, INST);
  const one = watch.current();
  expect(one.map((l) => l.name)).toEqual(["inst"]);
  setLoginProviders(other, "inst", ["openai"]);
  setLoginProviders(db, "inst", ["anthropic"]);
  expect(watch.current()).toBe(one);
});
