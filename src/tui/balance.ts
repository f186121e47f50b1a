/**
 * The status bar's balance: the usage of the login whose model the session uses, read after each
 * turn (and when the session or its model changes) and at most once a minute otherwise. An
 * instance without usage, a login without a plan, or a model of no login shows nothing; a failed
 * read (a 500, a timeout, an answer that does not parse) keeps the last good figure, marked stale.
 */
import type { UsageLoginRef } from "../account/usage-report.ts";
import { fetchUsage, type UsageReading } from "../account/usage.ts";
import { balanceFigure } from "../account/usage-format.ts";

/** What the status bar shows of the balance: a figure, stale when the last read failed; null for nothing. */
export type BalanceShown = { text: string; stale: boolean } | null;

export type BalanceWatchOptions = {
  /** The login whose model the session uses now; null when it is a device connection's, or none. */
  loginOf(): Promise<UsageLoginRef | null>;
  onChange(shown: BalanceShown): void;
  read?: (login: UsageLoginRef) => Promise<UsageReading>;
  everyMs?: number;
};

export const BALANCE_EVERY_MS = 60_000;

export class BalanceWatch {
  private last: { login: string; text: string } | null = null;
  private running: Promise<void> | null = null;
  private wanted = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(private readonly opts: BalanceWatchOptions) {}

  /** Reads once a minute from now until {@link stop} (a read now is {@link refresh}'s). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.refresh(), this.opts.everyMs ?? BALANCE_EVERY_MS);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the balance again; one asked for while a read runs is made once that one ends. */
  refresh(): Promise<void> {
    if (this.running) {
      this.wanted = true;
      return this.running;
    }
    this.running = this.readOnce().finally(() => {
      this.running = null;
      if (this.wanted && !this.stopped) {
        this.wanted = false;
        void this.refresh();
      }
    });
    return this.running;
  }

  private async readOnce(): Promise<void> {
    let shown: BalanceShown;
    try {
      shown = await this.read();
    } catch {
      // Whatever went wrong around the read (the store, the model list), the bar keeps what it had, stale.
      shown = this.last ? { text: this.last.text, stale: true } : null;
    }
    if (!this.stopped) this.opts.onChange(shown);
  }

  private async read(): Promise<BalanceShown> {
    const login = await this.opts.loginOf();
    if (!login) {
      this.last = null;
      return null;
    }
    const reading = await (this.opts.read ?? fetchUsage)(login);
    if (reading.kind === "failed") return this.last?.login === login.name ? { text: this.last.text, stale: true } : null;
    const text = reading.kind === "usage" ? balanceFigure(reading.usage) : null;
    this.last = text === null ? null : { login: login.name, text };
    return text === null ? null : { text, stale: false };
  }
}
