/** When and how often a failed request is sent again (only before the first token of a reply). */
export type RetryPolicy = {
  /** Retries after the first try; 0 sends once. */
  retries: number;
  /** The first wait; each further one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server's Retry-After is honoured up to this long. */
  maxRetryAfterMs: number;
  /** Waits `ms`, or until `signal` aborts (then rejects); injectable so tests need not wait. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/** 3 retries after 0.5, 1 and 2 s (Retry-After instead where sent, up to 30 s). */
export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  sleep: abortableSleep,
};

/** The wait before retry number `attempt` (1 for the first retry). */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds from `now`; null if absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
