import { waitMs } from "../timing.ts";

/** When and how often a failed request is sent again (only before the first token of a reply). */
export type RetryPolicy = {
  /** Retries after the first try, of any kind (a kind may have fewer, below); 0 sends once. */
  retries: number;
  /** Retries of a try that timed out (the server fell silent: see idle.ts); each costs a whole timeout. */
  timeoutRetries: number;
  /** Retries of a server that did not answer at all (connection refused: most often not started). */
  unreachableRetries: number;
  /** The first wait; each further one doubles, up to maxDelayMs, then jitter takes up to half off. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking to wait longer than this (Retry-After and kin) is not waited for: the error says when. */
  maxRetryAfterMs: number;
  /** All the waits of one request together; a retry that would go past it is not made. */
  maxTotalMs: number;
  /** A number in [0, 1): the jitter's draw (Math.random; fixed in tests). */
  random: () => number;
  /** Waits `ms`, or until `signal` aborts (then rejects); injectable so tests need not wait. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/**
 * 8 retries of a 429 or 5xx after about 1, 2, 4, 8, 16, 30, 30, 30 s (each 50–100 % of that, so
 * many clients refused at once do not come back at once: the "equal jitter" of AWS's backoff
 * article), about one to two minutes in all; a server's own wait instead where it says one, up to
 * 2 min. The OpenAI and Anthropic SDKs retry 2 times up to 8 s, which a local server loading a
 * model or a busy free tier outlasts; Codex retries a request 4 times and a stream 5. A server
 * that is not there (refused) gets 3 quick retries, so a stopped local server is said in seconds;
 * one that fell silent gets 1, as each costs a whole idle timeout.
 */
export const DEFAULT_RETRY: RetryPolicy = {
  retries: 8,
  timeoutRetries: 1,
  unreachableRetries: 3,
  baseDelayMs: waitMs("RETRY_BASE_MS", 1000),
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  maxTotalMs: 240_000,
  random: Math.random,
  sleep: abortableSleep,
};

/** The wait before retry number `attempt` (1 for the first retry): the server's, else backoff with jitter. */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return retryAfterMs;
  const backoff = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(backoff * (1 - policy.random() / 2));
}

/**
 * How long the server asked to wait, in ms from `now`; null when it did not say (or said nothing readable).
 * In order: `retry-after-ms` (OpenAI's and Azure's, what their SDKs read first), `Retry-After` (RFC 9110
 * §10.2.3: seconds or an HTTP date; Groq, Anthropic, vLLM behind proxies), and on a 429 the
 * `x-ratelimit-reset-*` of a bucket whose `x-ratelimit-remaining-*` is 0 (OpenAI's and Groq's rate-limit
 * headers, durations such as "6m0s", "2m59.56s", "12ms": platform.openai.com/docs/guides/rate-limits,
 * console.groq.com/docs/rate-limits). A reset is only read for a bucket that is empty: the headers come
 * on every answer and describe both buckets, and the full one's reset says nothing about this refusal.
 */
export function serverWait(headers: Headers, status: number, now = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms.trim()));
  const after = parseRetryAfter(headers.get("retry-after"), now);
  if (after !== null || status !== 429) return after;
  let longest: number | null = null;
  for (const bucket of ["requests", "tokens"]) {
    if (headers.get(`x-ratelimit-remaining-${bucket}`)?.trim() !== "0") continue;
    const reset = parseDuration(headers.get(`x-ratelimit-reset-${bucket}`));
    if (reset !== null) longest = Math.max(longest ?? 0, reset);
  }
  return longest;
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

const DURATION = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/** A Go-style duration ("1h2m3.5s", "6m0s", "12ms") or plain seconds, in ms; null if unreadable. */
export function parseDuration(text: string | null): number | null {
  if (text === null) return null;
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const match = DURATION.exec(value);
  if (!match || value === "") return null;
  const [, h = "0", m = "0", s = "0", milli = "0"] = match;
  return Math.round(Number(h) * 3_600_000 + Number(m) * 60_000 + Number(s) * 1000 + Number(milli));
}

/** A wait as a person reads it: "0.3 s", "4 s", "2 min 5 s". */
export function describeWait(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const rest = seconds % 60;
  return rest === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
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
