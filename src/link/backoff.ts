/** Redial delays: about 0.5 s doubling to a 30 s cap, each with ±50 % jitter so devices spread out. */
export type Backoff = { baseMs: number; capMs: number; random?: () => number };

export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000 };

export function backoffDelay(attempt: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  const raw = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.min(attempt, 20));
  const jitter = 0.5 + (backoff.random ?? Math.random)();
  return Math.round(Math.min(backoff.capMs, raw * jitter));
}

/** A link that stayed up this long resets the backoff: its next drop redials at once-ish. */
export const RESET_AFTER_MS = 30_000;
