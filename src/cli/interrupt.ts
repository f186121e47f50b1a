import type { Session } from "../engine/session.ts";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export type Interruption = { readonly cancelled: boolean; hold(session: Session, turnId: string): void; remove(): void };

/**
 * Ctrl-C (and SIGTERM, and SIGHUP: its terminal closed) for the whole run. Before the turn has a
 * session, it ends the process (exit 130; nothing is kept yet); once it has, it cancels the turn,
 * which ends the run with 130; a second one while the turn stops ends the process.
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
  for (const signal of SIGNALS) process.on(signal, stop);
  return {
    get cancelled() {
      return cancelled;
    },
    hold: (session, turnId) => {
      held = { session, turnId };
    },
    remove: () => {
      for (const signal of SIGNALS) process.off(signal, stop);
    },
  };
}
