import { takeHold, getHold, type Hold, heldElsewhere } from "./holds.ts";
import type { Db } from "./db.ts";
import { getSession, type SessionRow } from "./sessions.ts";
import { listTurns, settleInterrupted } from "./turns.ts";

/**
 * Where the store says a session is, for a process that does not run it itself (the engine knows
 * the ones it runs): not there, held by another live process (which, and its turns as that process
 * wrote them), or held by nobody — no hold, or a dead holder, whose unfinished turns are settled in
 * the same transaction (running ones ended as interrupted, queued ones forgotten: never run again).
 * The one place the store's holds and turns are read to say it (acp/whereabouts.ts builds on it).
 */
export type Placement =
  | { at: "absent" }
  | { at: "elsewhere"; row: SessionRow; hold: Hold; turns: TurnsNow }
  | { at: "nobody"; row: SessionRow; turns: TurnsNow };

/** A session's turns as a status says them: running now, waiting, the last one finished. */
export type TurnsNow = { running?: string; queued: string[]; lastDone?: string };

export function placeUnrun(db: Db, sessionId: string): Placement {
  // Read, and settle what a dead holder left, in one transaction: a process taking the session's hold
  // meanwhile cannot have its new turn taken for a dead one's.
  return db
    .transaction((): Placement => {
      const row = getSession(db, sessionId);
      if (!row) return { at: "absent" };
      const hold = heldElsewhere(db, sessionId);
      if (!hold) settleInterrupted(db, sessionId);
      const turns = listTurns(db, sessionId);
      const lastDone = turns.filter((t) => t.state === "done").at(-1)?.turnId;
      const running = hold ? turns.find((t) => t.state === "running")?.turnId : undefined;
      const queued = hold ? turns.filter((t) => t.state === "queued").map((t) => t.turnId) : [];
      const now: TurnsNow = { ...(running ? { running } : {}), queued, ...(lastDone ? { lastDone } : {}) };
      return hold ? { at: "elsewhere", row, hold, turns: now } : { at: "nobody", row, turns: now };
    })
    .immediate();
}

/**
 * Takes a session's hold for this process, recovering what a dead holder left in the same transaction.
 * Returns the live holder that keeps it instead, or null when this process holds it now.
 */
export function holdSession(db: Db, sessionId: string, holder: string, opts: { recover: boolean }): Hold | null {
  return db
    .transaction(() => {
      const other = takeHold(db, sessionId, holder);
      if (!other && opts.recover) settleInterrupted(db, sessionId);
      return other;
    })
    .immediate();
}

/**
 * Of the sessions this process runs, those it no longer holds: deleted meanwhile, or taken by
 * another process while this one was stopped (SIGSTOP past the stale bound, a laptop asleep).
 * Each with the live process that holds it now, or null when the session is gone.
 */
export function lostHolds(db: Db, sessionIds: readonly string[]): { sessionId: string; holder: Hold | null }[] {
  const lost: { sessionId: string; holder: Hold | null }[] = [];
  for (const sessionId of sessionIds) {
    const hold = getHold(db, sessionId);
    if (hold?.pid === process.pid) continue;
    // No hold but the session is there: a hold lost to a failed write; this process still runs it alone.
    if (!hold && getSession(db, sessionId)) continue;
    lost.push({ sessionId, holder: hold });
  }
  return lost;
}

export { type Hold, heldElsewhere, heldElsewhereSentence, releaseHold } from "./holds.ts";
