import type { EngineEvent } from "../bus/index.ts";
import { type Component, truncateToWidth, visibleWidth } from "./kit.ts";
import { plain } from "./blocks/plain.ts";
import type { Theme } from "./theme.ts";
import type { BalanceShown } from "./balance.ts";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** How long a flash (a short-lived message) stays. */
const FLASH_MS = 4_000;

export type StatusFacts = { model: string | null; mode: string; effort: string };

/**
 * The one line under the composer: model ref, mode, effort, context fill, the session's tokens,
 * the instance's balance and whether the session is shared (with which instance); "working" with
 * the elapsed time and a spinner while a turn runs.
 */
export class StatusBar implements Component {
  private facts: StatusFacts = { model: null, mode: "edit", effort: "medium" };
  private workingSince: number | null = null;
  private tokens = 0;
  /** Of those, the prompt tokens read from and written to the provider's cache (Messages, Responses). */
  private cache = { read: 0, written: 0 };
  private context: { used: number; limit: number } | null = null;
  private waiting = 0;
  private flash: { message: string; until: number } | null = null;
  /** The balance of the login whose model the session uses (src/tui/balance.ts); a stale one is dimmed. */
  balance: BalanceShown = null;
  /** Whether the session is shared, and with which instance ("shared · inst"); null when it is not. */
  sharing: string | null = null;
  /** Vim mode's mode in the composer; null when vim mode is off. */
  vim: "normal" | "insert" | null = null;
  /** A note in place of the facts (a narrow terminal, a first run). */
  note: string | null = null;

  constructor(
    private readonly theme: Theme,
    private readonly now: () => number = Date.now,
  ) {}

  set(facts: StatusFacts): void {
    this.facts = facts;
  }

  setModel(ref: string | null): void {
    this.facts = { ...this.facts, model: ref };
  }

  /** A new session: its counts start over. */
  reset(facts: StatusFacts): void {
    this.facts = facts;
    this.tokens = 0;
    this.cache = { read: 0, written: 0 };
    this.context = null;
    this.waiting = 0;
    this.workingSince = null;
  }

  /** The tokens this session's turns used since it was opened here. */
  get sessionTokens(): number {
    return this.tokens;
  }

  get working(): boolean {
    return this.workingSince !== null;
  }

  say(message: string): void {
    this.flash = { message: plain(message).replace(/\n/g, " "), until: this.now() + FLASH_MS };
  }

  apply(event: EngineEvent): void {
    if (event.type === "task") this.workingSince = event.state === "start" ? this.now() : null;
    else if (event.type === "usage") {
      this.tokens += event.promptTokens + event.completionTokens;
      this.cache = { read: this.cache.read + (event.cacheReadTokens ?? 0), written: this.cache.written + (event.cacheWriteTokens ?? 0) };
      if (event.contextLimit) this.context = { used: event.promptTokens + event.completionTokens, limit: event.contextLimit };
    } else if (event.type === "mode") this.facts = { ...this.facts, mode: event.mode };
    else if (event.type === "model") this.facts = { ...this.facts, model: event.ref, effort: event.effort };
    else if (event.type === "inbox") this.waiting = event.count;
    else if (event.type === "done") this.waiting = 0;
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    if (this.note) return [truncateToWidth(t.warn(this.note), width)];
    const parts = [t.accent(this.facts.model ?? "no model"), this.facts.mode, `effort ${this.facts.effort}`];
    if (this.vim) parts.unshift(this.vim === "insert" ? "-- INSERT --" : t.accent("-- NORMAL --"));
    if (this.context) parts.push(`${Math.min(999, Math.round((this.context.used / this.context.limit) * 100))}% context`);
    parts.push(`${formatTokens(this.tokens)} ${this.tokens === 1 ? "token" : "tokens"}${cacheNote(this.cache)}`);
    if (this.balance) parts.push(this.balance.stale ? t.dim(`${this.balance.text}, stale`) : this.balance.text);
    if (this.sharing) parts.push(this.sharing);
    let left = "";
    // A flash is said while a turn runs too: "press Ctrl-C again to quit" most of all.
    const flash = this.flash && this.flash.until > this.now() ? t.warn(this.flash.message) : null;
    if (this.workingSince !== null) {
      const elapsed = this.now() - this.workingSince;
      const frame = SPINNER[Math.floor(elapsed / 100) % SPINNER.length];
      left = `${t.accent(frame ?? "")} working ${formatElapsed(elapsed)}${this.waiting ? ` · ${this.waiting} waiting for the next step` : ""} · ${flash ?? (this.vim === "insert" ? "esc to normal mode, esc esc to interrupt" : "esc to interrupt")}   `;
    } else if (flash) left = `${flash}   `;
    const right = parts.join(t.dim(" · "));
    const line = left + right;
    if (visibleWidth(line) <= width) return [line];
    return [truncateToWidth(line, width)];
  }

  invalidate(): void {}
}

/** " (9.1k cached, 2k cache written)" when the provider's cache was used, else nothing. */
function cacheNote(cache: { read: number; written: number }): string {
  const said = [cache.read > 0 ? `${formatTokens(cache.read)} cached` : "", cache.written > 0 ? `${formatTokens(cache.written)} cache written` : ""].filter(Boolean);
  return said.length > 0 ? ` (${said.join(", ")})` : "";
}

function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}
