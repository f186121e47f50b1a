import type { ReadWatch } from "./sse.ts";

/**
 * The idle timeout: a server that answers and then falls silent (headers, then nothing; or half a
 * reply, then nothing) is given up on instead of being waited for until someone cancels.
 *
 * Two waits. Until the first byte of the body a model may think for long without a word (a
 * reasoning model before its first token, Gemini sending not even headers while it thinks, a local
 * server processing a long prompt), so the first wait is the longer; after it, a healthy stream
 * sends something every few seconds at most, keep-alive comments included (OpenRouter's
 * ": OPENROUTER PROCESSING" lines count: they say the upstream is still at work). Every byte counts,
 * not only whole events, so a slow long line is not mistaken for silence. Peers: opencode's
 * chunkTimeout (between chunks only, 5 min), Codex's stream_idle_timeout_ms (5 min), the dive
 * library's separate first-event and idle limits (its v1.40.0 notes).
 *
 * config.yaml's `idle_timeout` (seconds, per connection) sets both waits to that one number: the
 * person who sets it chose how long their server may be silent.
 */

/** How long a server may be silent, in ms: before the body's first byte, and between bytes after it. */
export type IdleLimits = { firstByteMs: number; betweenBytesMs: number };

/** 3 min for the first byte, 2 min between bytes. */
export const DEFAULT_IDLE: IdleLimits = { firstByteMs: 180_000, betweenBytesMs: 120_000 };

/** A connection's idle setting, as the endpoint carries it. */
export type IdleSetting = {
  /** config.yaml's idle_timeout, when set. */
  seconds?: number;
  /** What a person does to wait longer; ends a timeout's sentence. */
  hint: string;
};

/** The setting of config.yaml connection `name` (`seconds` its idle_timeout, if any). */
export function idleSetting(name: string, seconds: number | undefined): IdleSetting {
  const hint = `raise idle_timeout (seconds) of connection "${name}" in config.yaml if it needs longer`;
  return seconds === undefined ? { hint } : { seconds, hint };
}

export function idleLimits(setting: IdleSetting | undefined): IdleLimits {
  if (setting?.seconds === undefined) return DEFAULT_IDLE;
  const ms = Math.round(setting.seconds * 1000);
  return { firstByteMs: ms, betweenBytesMs: ms };
}

/**
 * Watches one try for silence; when it lasts too long, aborts `signal` (the try's fetch and body
 * read with it) and keeps what timed out in `timedOut`. One timer per wait, not per read: a read
 * (sse.ts tells of each) only notes the time, and the timer, when it fires early, sleeps again for
 * what is left. Silence counts only while a read waits, so a consumer slow to ask is not it.
 */
export class IdleWatch implements ReadWatch {
  private readonly controller = new AbortController();
  /** The try's signal: aborted by the outer signal or by silence. */
  readonly signal: AbortSignal;
  /** Set when silence ended the try: how long it lasted. */
  timedOut: { afterMs: number } | null = null;
  private last = performance.now();
  private limit: number;
  private started = false;
  /** Whether the try waits on the server (the answer, or a read of the body): silence counts only then. */
  private waiting = true;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly limits: IdleLimits,
    outer: AbortSignal | undefined,
  ) {
    this.limit = limits.firstByteMs;
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    this.arm(this.limit);
  }

  /** Notes that a read of the body was asked for: the server's silence counts from now. */
  reading(): void {
    this.waiting = true;
    this.last = performance.now();
  }

  /** Notes a read answered (bytes, or the end): from now on the shorter wait holds. */
  read(): void {
    this.waiting = false;
    this.last = performance.now();
    if (this.started) return;
    this.started = true;
    this.limit = this.limits.betweenBytesMs;
  }

  /** Ends the watch (the try is over). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
  }

  private check(): void {
    const silent = performance.now() - this.last;
    if (!this.waiting) return this.arm(this.limit);
    if (silent + 1 < this.limit) return this.arm(this.limit - silent);
    this.timer = null;
    this.timedOut = { afterMs: this.limit };
    this.controller.abort(new DOMException("the model server fell silent", "TimeoutError"));
  }
}
