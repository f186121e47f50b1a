/**
 * A stored session's rows spoilt as a disk error, a hand edit or an older version's bug leaves
 * them: a body that is not JSON, or JSON of a shape no record has. Written by SQL, as lembas never
 * writes them.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";

/** What each spoilt row was, for the test to say which one it expects gone. */
export type Spoilt = { seq: number; role: string; body: string };

/** Sets the body of the `nth` (from 0) row of `role` in the session to `body`; returns the row as it was. */
export function spoilRow(stateDir: string, sessionId: string, role: string, nth: number, body: string): Spoilt {
  const db = new Database(join(stateDir, "lembas.db"));
  try {
    const rows = db.query<{ seq: number; body: string }, [string, string]>("SELECT seq, body FROM messages WHERE session_id = ? AND role = ? ORDER BY seq").all(sessionId, role);
    const row = rows[nth];
    if (!row) throw new Error(`session ${sessionId} has no ${role} row ${nth} (it has ${rows.length})`);
    db.query("UPDATE messages SET body = ? WHERE session_id = ? AND seq = ?").run(body, sessionId, row.seq);
    return { seq: row.seq, role, body: row.body };
  } finally {
    db.close();
  }
}

/** Sets the kept answer of every done turn of the session to `answer`. */
export function spoilTurnAnswers(stateDir: string, sessionId: string, answer: string): number {
  const db = new Database(join(stateDir, "lembas.db"));
  try {
    return db.query("UPDATE turns SET answer = ? WHERE session_id = ? AND state = 'done'").run(answer, sessionId).changes;
  } finally {
    db.close();
  }
}

/** Not JSON at all. */
export const NOT_JSON = "not json{";
/** JSON, but of no record's shape (the control: the schemas have always skipped such a row). */
export const WRONG_SHAPE = JSON.stringify({ callId: 7, output: ["x"] });
