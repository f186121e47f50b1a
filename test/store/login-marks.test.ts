/**
 * What the device keeps for a login's clients (the sessions given to them: store/marks.ts; the
 * deletes to tell them: store/deletes.ts) is the account's, not the name's: forgotten with the
 * login at logout, and when a new token (another account, as far as the device can tell) or
 * another instance takes the name; kept across a rename and a login again with the same token.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { LinkOwners } from "../../src/acp/link-owners.ts";
import { openDb, type Db } from "../../src/store/db.ts";
import { keepDelete, pendingDeletes } from "../../src/store/deletes.ts";
import { deleteLogin, saveLogin } from "../../src/store/logins.ts";
import { givenTo, givenToLogins, markGiven } from "../../src/store/marks.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let db: Db;
beforeEach(() => {
  box = sandbox();
  db = openDb(join(box.stateDir, "lembas.db"));
});
afterEach(() => {
  db.close();
  box.cleanup();
});

const INST = { name: "inst", url: "http://127.0.0.1:9", token: "token-a", protocols: [1, 2] };

/** What the device keeps for `login`'s clients: the sessions given, the deletes to tell. */
function kept(login: string): { given: boolean; deletes: string[] } {
  return { given: givenTo(db, "ses_a").includes(login), deletes: pendingDeletes(db, login) };
}

function giveAndDelete(login: string): void {
  markGiven(db, "ses_a", login);
  keepDelete(db, "ses_gone", [login]);
}

test("a logout forgets the login's marks and kept deletes with it; another login's stay", () => {
  saveLogin(db, INST);
  saveLogin(db, { ...INST, name: "other", url: "http://127.0.0.1:10" });
  giveAndDelete("inst");
  giveAndDelete("other");
  expect(deleteLogin(db, "inst")).toBe(true);
  expect(kept("inst")).toEqual({ given: false, deletes: [] });
  expect(kept("other")).toEqual({ given: true, deletes: ["ses_gone"] });
});

test("a login again with another token on the same instance starts with none; with the same token it keeps them", () => {
  saveLogin(db, INST);
  giveAndDelete("inst");
  saveLogin(db, INST);
  expect(kept("inst")).toEqual({ given: true, deletes: ["ses_gone"] });
  saveLogin(db, { ...INST, token: "token-of-another-account" });
  expect(kept("inst")).toEqual({ given: false, deletes: [] });
});

test("a rename keeps them under the new name; a rename with a new token does not", () => {
  saveLogin(db, INST);
  giveAndDelete("inst");
  saveLogin(db, { ...INST, name: "renamed" });
  expect(kept("inst")).toEqual({ given: false, deletes: [] });
  expect(kept("renamed")).toEqual({ given: true, deletes: ["ses_gone"] });
  saveLogin(db, { ...INST, name: "again", token: "token-b" });
  expect(kept("renamed")).toEqual({ given: false, deletes: [] });
  expect(kept("again")).toEqual({ given: false, deletes: [] });
});

test("what a logout left under a name before logouts forgot it counts for nobody, and is dropped when a new login takes the name", () => {
  giveAndDelete("inst");
  expect(givenToLogins(db, "ses_a")).toEqual([]);
  saveLogin(db, { ...INST, url: "http://127.0.0.1:11" });
  expect(kept("inst")).toEqual({ given: false, deletes: [] });
});

test("a link never takes a session another login's link owns; one of its own login's does", () => {
  const owners = new LinkOwners();
  const released: string[] = [];
  const a = {};
  owners.take("ses_a", a, () => released.push("a"), "inst");
  expect(() => owners.take("ses_a", {}, () => released.push("b"), "instb")).toThrow("not instb's to take");
  expect(owners.ownerOf("ses_a")).toBe(a);
  owners.take("ses_a", {}, () => released.push("a2"), "inst");
  expect(released).toEqual(["a"]);
  expect(owners.loginOf("ses_a")).toBe("inst");
});
