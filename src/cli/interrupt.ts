import type { Session } from "../engine/session.ts";

export type Interruption = { readonly cancelled: boolean; hold(session: Session, turnId: string): void; remove(): void };

/**
 * Ctrl-C (and SIGTERM) for the whole run. Before the turn has a session, it ends the process
 * (exit 130; nothing is kept yet); once it has, it cancels the turn, which ends the run with 130;
 * a second one while the turn stops ends the process.
 */
export function interruption(early: () => void): Interruption {
  let held: { session: Session; turnId: string } | null = null;
  let cancelled = false;
  const stop = () => {
    if (held && !cancelled) {
      cancelled = true;
      held.session.cancelTurn(held.turnId);
      return;
    }
    early();
    process.exit(130);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return {
    get cancelled() {
      return cancelled;
    },
    hold: (session, turnId) => {
      held = { session, turnId };
    },
    remove: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
