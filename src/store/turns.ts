import type { Db } from "./db.ts";
import { readJson } from "./json-column.ts";

export type TurnState = "queued" | "running" | "done";
/** answer: null before the turn is done; undefined for one kept that is not JSON (engine/turn-queue.ts says it could not be read). */
export type TurnRow = { turnId: string; seq: number; state: TurnState; answer: unknown; updatedAt: number };

/** How many accepted turn ids a session keeps, and for how long an untouched one is kept. */
export const TURNS_KEPT = 200;
export const TURNS_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

type RawTurn = { turn_id: string; seq: number; state: TurnState; answer: string | null; updated_at: number };

function toRow(raw: RawTurn): TurnRow {
  return {
    turnId: raw.turn_id,
    seq: raw.seq,
    state: raw.state,
    answer: raw.answer === null ? null : readJson(raw.answer),
    updatedAt: raw.updated_at,
  };
}

/**
 * Accepts a turn id for a session in one transaction: a new id is queued (and true is returned),
 * a known one is left alone and returned as it stands, so a re-sent turn never runs twice.
 */
export function acceptTurn(db: Db, sessionId: string, turnId: string): { accepted: boolean; turn: TurnRow } {
  const run = db.transaction(() => {
    const now = Date.now();
    const next = db
      .query<{ s: number | null }, [string]>("SELECT max(seq) AS s FROM turns WHERE session_id = ?")
      .get(sessionId);
    const seq = (next?.s ?? 0) + 1;
    const inserted = db
      .query(
        "INSERT INTO turns (session_id, turn_id, seq, state, updated_at) VALUES (?, ?, ?, 'queued', ?) ON CONFLICT DO NOTHING",
      )
      .run(sessionId, turnId, seq, now);
    if (inserted.changes > 0) {
      // Each turn's seq is one past the last, so a session holds no more turns than its newest seq: below the bound there is none to trim.
      if (seq > TURNS_KEPT) trimTurns(db, sessionId);
      return { accepted: true, turn: { turnId, seq, state: "queued" as const, answer: null, updatedAt: now } };
    }
    const turn = getTurn(db, sessionId, turnId);
    if (!turn) throw new Error(`turn ${turnId} vanished while being accepted`);
    return { accepted: false, turn };
  });
  return run.immediate();
}

export function getTurn(db: Db, sessionId: string, turnId: string): TurnRow | null {
  const raw = db
    .query<RawTurn, [string, string]>(
      "SELECT turn_id, seq, state, answer, updated_at FROM turns WHERE session_id = ? AND turn_id = ?",
    )
    .get(sessionId, turnId);
  return raw ? toRow(raw) : null;
}

export function setTurnState(db: Db, sessionId: string, turnId: string, state: TurnState, answer?: unknown): void {
  db.query("UPDATE turns SET state = ?, answer = ?, updated_at = ? WHERE session_id = ? AND turn_id = ?").run(
    state,
    answer === undefined ? null : JSON.stringify(answer),
    Date.now(),
    sessionId,
    turnId,
  );
}

/** Forgets a turn id (one that never started): a re-send of it is a new turn. */
export function forgetTurn(db: Db, sessionId: string, turnId: string): void {
  db.query("DELETE FROM turns WHERE session_id = ? AND turn_id = ? AND state != 'done'").run(sessionId, turnId);
}

/** The session's kept turns, oldest first. */
export function listTurns(db: Db, sessionId: string): TurnRow[] {
  return db
    .query<RawTurn, [string]>(
      "SELECT turn_id, seq, state, answer, updated_at FROM turns WHERE session_id = ? ORDER BY seq",
    )
    .all(sessionId)
    .map(toRow);
}

/** Turns a process left queued or running when it died: they will never finish. */
export function unfinishedTurns(db: Db, sessionId: string): TurnRow[] {
  return listTurns(db, sessionId).filter((t) => t.state !== "done");
}

function trimTurns(db: Db, sessionId: string): void {
  db.query(
    `DELETE FROM turns WHERE session_id = ?1 AND state = 'done' AND seq <= (
       SELECT seq FROM turns WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ${TURNS_KEPT}
     )`,
  ).run(sessionId);
}

/** Forgets the turns of sessions untouched for 30 days. Returns how many rows went. */
export function pruneTurns(db: Db, now = Date.now()): number {
  const cutoff = now - TURNS_MAX_AGE_MS;
  return db
    .query(
      `DELETE FROM turns WHERE session_id IN (
         SELECT session_id FROM turns GROUP BY session_id HAVING max(updated_at) < ?
       )`,
    )
    .run(cutoff).changes;
}

/**
 * Settles the turns a dead process left unfinished (they will never finish): one still queued
 * never started, and is forgotten (a re-send runs it once); one that was running is done, its
 * answer cancelled and interrupted (it never runs again). Call only when no live process holds the
 * session. Returns how many were settled.
 */
export function settleInterrupted(db: Db, sessionId: string): number {
  const stale = unfinishedTurns(db, sessionId);
  for (const turn of stale) {
    if (turn.state === "queued") forgetTurn(db, sessionId, turn.turnId);
    else setTurnState(db, sessionId, turn.turnId, "done", { turnId: turn.turnId, stopReason: "cancelled", interrupted: true });
  }
  return stale.length;
}
