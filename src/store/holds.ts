import { isAlive } from "../processes.ts";
import type { Db } from "./db.ts";

/**
 * Which process runs a session: one row a session, taken in a BEGIN IMMEDIATE transaction so
 * that two processes never both think they hold it. A holder whose pid is gone is dead, and its
 * session can be taken.
 */
export type Hold = { sessionId: string; holder: string; pid: number; since: number; heartbeat: number };

type RawHold = { session_id: string; holder: string; pid: number; since: number; heartbeat: number };

export function getHold(db: Db, sessionId: string): Hold | null {
  const raw = db
    .query<RawHold, [string]>("SELECT session_id, holder, pid, since, heartbeat FROM holds WHERE session_id = ?")
    .get(sessionId);
  return raw ? { sessionId: raw.session_id, holder: raw.holder, pid: raw.pid, since: raw.since, heartbeat: raw.heartbeat } : null;
}

/** A holder that has not beaten its heart for this long is dead, whatever its pid says (reused after a reboot). */
export const HOLD_STALE_MS = 2 * 60 * 1000;
/** How often a live process beats for the sessions it holds. */
export const HEARTBEAT_MS = 30 * 1000;

/** Whether a hold's holder still runs: its process is there and its heart beats. */
export function holderAlive(hold: Hold, now = Date.now()): boolean {
  if (hold.pid === process.pid) return true;
  return now - hold.heartbeat < HOLD_STALE_MS && isAlive(hold.pid);
}

/**
 * The live holder of a session when it is another process, else null (nobody, a dead one, or this
 * process): the one answer to "is it held elsewhere" that every caller asks.
 */
export function heldElsewhere(db: Db, sessionId: string, now = Date.now()): Hold | null {
  const hold = getHold(db, sessionId);
  return hold && hold.pid !== process.pid && holderAlive(hold, now) ? hold : null;
}

/** The sentence for a session another live process holds. */
export function heldElsewhereSentence(hold: Hold): string {
  return `session ${hold.sessionId} is open in another lembas process (${hold.holder}, pid ${hold.pid})`;
}

/** Keeps this process's holds fresh. */
export function beat(db: Db, now = Date.now()): void {
  db.query("UPDATE holds SET heartbeat = ? WHERE pid = ?").run(now, process.pid);
}


/**
 * Takes a session's hold for this process. Returns the live holder that keeps it instead, or null when
 * it was taken (no holder, a dead one, or this process already).
 */
export function takeHold(db: Db, sessionId: string, holder: string): Hold | null {
  return db
    .transaction(() => {
      const current = getHold(db, sessionId);
      if (current && current.pid !== process.pid && holderAlive(current)) return current;
      const now = Date.now();
      db.query(
        `INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, since = excluded.since, heartbeat = excluded.heartbeat`,
      ).run(sessionId, holder, process.pid, now, now);
      return null;
    })
    .immediate();
}

export function releaseHold(db: Db, sessionId: string): void {
  db.query("DELETE FROM holds WHERE session_id = ? AND pid = ?").run(sessionId, process.pid);
}
