import type { Db } from "./db.ts";
import { readJson } from "./json-column.ts";

/** body: the stored record as JSON gave it back; undefined for a body that is not JSON, which every reader skips (engine/records.ts). */
export type MessageRow = { id: number; seq: number; role: string; body: unknown; turnId: string | null; createdAt: number };

type RawMessage = { id: number; seq: number; role: string; body: string; turn_id: string | null; created_at: number };

function toRow(raw: RawMessage): MessageRow {
  return {
    id: raw.id,
    seq: raw.seq,
    role: raw.role,
    body: readJson(raw.body),
    turnId: raw.turn_id,
    createdAt: raw.created_at,
  };
}

/** Appends a message to a session as it happens; seq is the session's next, taken in the same transaction. */
export function appendMessage(db: Db, sessionId: string, role: string, body: unknown, turnId: string | null): MessageRow {
  const run = db.transaction(() => {
    const last = db
      .query<{ s: number | null }, [string]>("SELECT max(seq) AS s FROM messages WHERE session_id = ?")
      .get(sessionId);
    const seq = (last?.s ?? 0) + 1;
    const now = Date.now();
    const result = db
      .query("INSERT INTO messages (session_id, seq, role, body, turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(sessionId, seq, role, JSON.stringify(body), turnId, now);
    db.query("UPDATE sessions SET updated_at = ? WHERE id = ?").run(now, sessionId);
    return { id: Number(result.lastInsertRowid), seq, role, body, turnId, createdAt: now };
  });
  return run.immediate();
}

export function listMessages(db: Db, sessionId: string, afterSeq = 0): MessageRow[] {
  return db
    .query<RawMessage, [string, number]>(
      "SELECT id, seq, role, body, turn_id, created_at FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq",
    )
    .all(sessionId, afterSeq)
    .map(toRow);
}

/** Up to `limit` of a session's messages after `afterSeq`, in order: a long history read a page at a time. */
export function messagePage(db: Db, sessionId: string, afterSeq: number, limit: number): MessageRow[] {
  return db
    .query<RawMessage, [string, number, number]>(
      "SELECT id, seq, role, body, turn_id, created_at FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    )
    .all(sessionId, afterSeq, limit)
    .map(toRow);
}

/** One turn's messages, in order (a session's rows are read by its unique index, only the turn's parsed). */
export function listTurnMessages(db: Db, sessionId: string, turnId: string): MessageRow[] {
  return db
    .query<RawMessage, [string, string]>(
      "SELECT id, seq, role, body, turn_id, created_at FROM messages WHERE session_id = ? AND turn_id = ? ORDER BY seq",
    )
    .all(sessionId, turnId)
    .map(toRow);
}

export function deleteMessagesFrom(db: Db, sessionId: string, fromSeq: number): number {
  return db.query("DELETE FROM messages WHERE session_id = ? AND seq >= ?").run(sessionId, fromSeq).changes;
}

/** How many messages the person sent in each of these sessions (a session with none is left out). */
export function userMessageCounts(db: Db, sessionIds: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  if (sessionIds.length === 0) return counts;
  const marks = sessionIds.map(() => "?").join(", ");
  const rows = db
    .query<{ session_id: string; n: number }, string[]>(`SELECT session_id, count(*) AS n FROM messages WHERE role = 'user' AND session_id IN (${marks}) GROUP BY session_id`)
    .all(...sessionIds);
  for (const row of rows) counts.set(row.session_id, row.n);
  return counts;
}
