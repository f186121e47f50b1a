/**
 * A stored value that is not JSON (a disk error, a hand edit, an older version's bug) is read back
 * as one no schema takes, never as an exception: a session's messages, a turn's kept answer, a
 * login's kept lists, the project's earlier prompts. One broken row must not take down the session
 * or the service that reads it at start.
 */
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { parseStored } from "../../src/engine/records.ts";
import { openDb } from "../../src/store/db.ts";
import { getLogin, listLogins, saveLogin, setLoginProviders } from "../../src/store/logins.ts";
import { appendMessage, listMessages, listTurnMessages, messagePage } from "../../src/store/messages.ts";
import { recentPrompts } from "../../src/store/prompts.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { acceptTurn, getTurn, listTurns, setTurnState } from "../../src/store/turns.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let file: string;
beforeEach(() => {
  box = sandbox();
  file = join(box.stateDir, "lembas.db");
});
afterEach(() => box.cleanup());

/** Sets a column by hand, as lembas never would. */
function spoil(sql: string, ...values: (string | number)[]): void {
  const raw = new Database(file);
  raw.query(sql).run(...values);
  raw.close();
}

test("a message whose body is not JSON is read back with no body: every row is there, that one skipped as one of the wrong shape", () => {
  const db = openDb(file);
  insertSession(db, { id: "ses_a", root: "/p", cwd: "/p", mode: "edit", model: null, effort: "medium", origin: "test" });
  appendMessage(db, "ses_a", "user", { text: "first prompt" }, "turn_1");
  appendMessage(db, "ses_a", "assistant", { text: "an answer", reasoning: "", toolCalls: [] }, "turn_1");
  appendMessage(db, "ses_a", "user", { text: "second prompt" }, "turn_2");
  appendMessage(db, "ses_a", "assistant", { text: "another", reasoning: "", toolCalls: [] }, "turn_2");
  spoil("UPDATE messages SET body = 'not json{' WHERE session_id = 'ses_a' AND seq = 2");
  spoil(`UPDATE messages SET body = '{"text": 5}' WHERE session_id = 'ses_a' AND seq = 3`);

  const rows = listMessages(db, "ses_a");
  expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  expect(rows[1]?.body).toBeUndefined();
  expect(rows.map(parseStored).map((m) => m?.seq ?? null)).toEqual([1, null, null, 4]);
  // A page that ends on the broken row still ends at its seq: the next page goes on past it.
  expect(messagePage(db, "ses_a", 0, 2).map((r) => r.seq)).toEqual([1, 2]);
  expect(messagePage(db, "ses_a", 2, 2).map((r) => r.seq)).toEqual([3, 4]);
  expect(listTurnMessages(db, "ses_a", "turn_1").map(parseStored).map((m) => m?.role ?? null)).toEqual(["user", null]);

  // The project's earlier prompts pass over a user row that is not JSON.
  spoil("UPDATE messages SET body = 'not json{' WHERE session_id = 'ses_a' AND seq = 1");
  expect(recentPrompts(db, "/p", 10)).toEqual([]);
  spoil(`UPDATE messages SET body = '{"text": "second prompt"}' WHERE session_id = 'ses_a' AND seq = 3`);
  expect(recentPrompts(db, "/p", 10)).toEqual(["second prompt"]);
  db.close();
});

test("a turn whose kept answer is not JSON is read back with none that parses, the others as they were", () => {
  const db = openDb(file);
  insertSession(db, { id: "ses_a", root: "/p", cwd: "/p", mode: "edit", model: null, effort: "medium", origin: "test" });
  for (const turnId of ["turn_1", "turn_2"]) {
    acceptTurn(db, "ses_a", turnId);
    setTurnState(db, "ses_a", turnId, "done", { turnId, stopReason: "end_turn" });
  }
  spoil("UPDATE turns SET answer = 'not json{' WHERE turn_id = 'turn_1'");
  expect(listTurns(db, "ses_a").map((t) => t.answer)).toEqual([undefined, { turnId: "turn_2", stopReason: "end_turn" }]);
  expect(getTurn(db, "ses_a", "turn_1")?.state).toBe("done");
  db.close();
});

test("a login whose kept protocols or providers are not lists is read back as one that has not learnt them yet", () => {
  const db = openDb(file);
  saveLogin(db, { name: "inst", url: "https://inst.example", token: "t", protocols: [1, 2] });
  setLoginProviders(db, "inst", ["openai"]);
  saveLogin(db, { name: "other", url: "https://other.example", token: "t", protocols: [2] });
  spoil("UPDATE logins SET protocols = 'not json{', providers = '{\"openai\": 1}' WHERE name = 'inst'");
  expect(listLogins(db).map((l) => [l.name, l.protocols, l.providers])).toEqual([
    ["inst", [], null],
    ["other", [2], null],
  ]);
  spoil("UPDATE logins SET protocols = '[1, \"2\"]', providers = 'not json{' WHERE name = 'inst'");
  expect(getLogin(db, "inst")).toMatchObject({ protocols: [], providers: null });
  db.close();
});
