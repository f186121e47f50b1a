/**
 * The sessions the service is handing to a terminal (`_lembas/ipc/take`): from the moment it is
 * asked until the terminal shares the session, the router holds the link's requests for it
 * instead of opening it here again, and then forwards them to the terminal.
 */

import { waitMs } from "../timing.ts";

/** How long a move may take from the service's answer to the terminal's share. */
export const MOVE_WAIT_MS = waitMs("MOVE_WAIT_MS", 10_000);

export class Moves {
  private readonly until = new Map<string, number>();

  /** A session starts moving (its running turn finishes first: no deadline until `handed`). */
  begin(sessionId: string): void {
    this.until.set(sessionId, Number.POSITIVE_INFINITY);
  }

  /** The service let go of it: the terminal has MOVE_WAIT_MS to share it. */
  handed(sessionId: string): void {
    this.until.set(sessionId, Date.now() + MOVE_WAIT_MS);
  }

  /** The move failed: the session stays here. */
  end(sessionId: string): void {
    this.until.delete(sessionId);
  }

  moving(sessionId: string, now = Date.now()): boolean {
    const until = this.until.get(sessionId);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(sessionId);
    return false;
  }
}
