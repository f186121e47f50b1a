import type { Session } from "../engine/session.ts";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export type Interruption = {
  readonly cancelled: boolean;
  /** A stop came once the answer was out and cut the session's end short. */
  readonly stoppedEnding: boolean;
  hold(session: Session, turnId: string): void;
  /** The turn has ended: from now a stop cuts the session's end short (ended(), below). */
  ended(): void;
  remove(): void;
};

/**
 * Ctrl-C (and SIGTERM, and SIGHUP: its terminal closed) for the whole run. Before the turn has a
 * session, it ends the process (exit 130; nothing is kept yet); once it has, it cancels the turn,
 * which ends the run with 130; a second one while the turn stops ends the process. Once the turn
 * has ended, it stops the session's SessionEnd hooks: the run ends at once, its answer out and
 * its result line written, with 130 (a shell's loop around it stops as at any Ctrl-C); a second one
 * then ends the process.
 */
export function interruption(early: () => void): Interruption {
  let held: { session: Session; turnId: string } | null = null;
  let cancelled = false;
  let ending: "no" | "yes" | "stopped" = "no";
  const stop = () => {
    if (held && ending === "yes") {
      ending = "stopped";
      held.session.stopEnding();
      return;
    }
    if (held && ending === "no" && !cancelled) {
      cancelled = true;
      held.session.cancelTurn(held.turnId);
      return;
    }
    if (ending === "no") early();
    process.exit(130);
  };
  for (const signal of SIGNALS) process.on(signal, stop);
  return {
    get cancelled() {
      return cancelled;
    },
    get stoppedEnding() {
      return ending === "stopped";
    },
    hold: (session, turnId) => {
      held = { session, turnId };
    },
    ended: () => {
      if (ending === "no") ending = "yes";
    },
    remove: () => {
      for (const signal of SIGNALS) process.off(signal, stop);
    },
  };
}
