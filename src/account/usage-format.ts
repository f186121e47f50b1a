/**
 * How usage is shown (spec/acp.md, `GET /v1/usage`): credits with up to two decimals below 1,000
 * and whole (with thousands separators) above; beside each, its money in the currency where one
 * is given — the `*_money` field when sent, else the credits times `credit_value`. A figure that
 * cannot be shown truly (not finite, beyond what a double holds exactly, a currency lembas does
 * not know) is left out, never shown wrong.
 */
import { terminalLine } from "../controls.ts";
import type { Usage, UsageWindow } from "./usage.ts";

/** The most spending windows printed; an instance may send thousands. The rest are counted. */
export const WINDOWS_SHOWN = 20;

const SYMBOLS: Record<string, string> = { EUR: "€", USD: "$", GBP: "£" };

const BELOW_THOUSAND = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2, signDisplay: "negative" });
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0, signDisplay: "negative" });
const CENTS = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A number that can be shown as it was meant: finite, and no larger than a double holds to the unit. */
function showable(n: number | null | undefined): n is number {
  return typeof n === "number" && Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER;
}

/** 999.994 → "999.99", 12.5 → "12.5", 1000.4 → "1,000"; null when it cannot be shown truly. */
export function formatCredits(n: number | null | undefined): string | null {
  if (!showable(n)) return null;
  const rounded = Math.round(n * 100) / 100;
  return Math.abs(rounded) < 1000 ? BELOW_THOUSAND.format(n) : WHOLE.format(n);
}

/** "€1.23", "-$0.50", "£1,234.00"; null for a currency lembas does not know, or a figure it cannot show. */
export function formatMoney(amount: number | null | undefined, currency: string | undefined): string | null {
  const symbol = currency === undefined ? undefined : SYMBOLS[currency];
  if (symbol === undefined || !showable(amount)) return null;
  const cents = CENTS.format(Math.abs(amount));
  return cents === "0.00" || amount >= 0 ? `${symbol}${cents}` : `-${symbol}${cents}`;
}

/** The money of a credit figure: the instance's own `*_money` when sent, else credits × credit_value. */
export function moneyOf(credits: number | null, sent: number | null | undefined, usage: Pick<Usage, "credit_value">): number | null {
  if (typeof sent === "number") return showable(sent) ? sent : null;
  const value = usage.credit_value;
  if (credits === null || !showable(value) || value < 0) return null;
  const money = credits * value;
  return showable(money) ? money : null;
}

/** "12.5 credits (€1.25)", "12.5 credits" without a currency; null when the credits cannot be shown. */
export function creditsText(credits: number | null, sentMoney: number | null | undefined, usage: Usage): string | null {
  const figure = formatCredits(credits);
  if (figure === null) return null;
  const money = formatMoney(moneyOf(credits, sentMoney, usage), usage.currency);
  return `${figure} ${unitWord(usage)}${money ? ` (${money})` : ""}`;
}

/** What the status bar says: "unlimited" for an admin, else the balance when there is a plan; null for nothing. */
export function balanceFigure(usage: Usage): string | null {
  if (usage.admin === true) return "unlimited";
  if (usage.plan === null) return null;
  return creditsText(usage.balance, usage.balance_money, usage);
}

/** The account in a few words: "admin, unlimited", "plan Pro" or "no plan". */
export function accountWords(usage: Usage): string {
  if (usage.admin === true) return "admin, unlimited";
  return usage.plan ? `plan ${clean(usage.plan.name) || "unnamed"}` : "no plan";
}

export type LineOptions = { timeZone?: string };

/** The whole of it, a line each: `lembas usage` and /usage. */
export function usageLines(usage: Usage, opts: LineOptions = {}): string[] {
  const lines: string[] = [];
  if (usage.admin === true) lines.push("unlimited: an admin account has no limit and is never refused");
  else {
    lines.push(planLine(usage));
    const balance = creditsText(usage.balance, usage.balance_money, usage);
    lines.push(balance ? `balance ${balance}` : "balance: not reported");
  }
  const from = timeText(usage.month.from, opts);
  lines.push(`this month${from ? ` (from ${from})` : ""}: ${spendText(usage.month, usage)}`);
  lines.push(`this device: ${spendText(usage.device, usage)}`);
  if (usage.admin !== true) lines.push(...windowLines(usage.windows ?? [], usage, opts));
  return lines;
}

/** A line for each of the first WINDOWS_SHOWN windows, then one counting those left out. */
function windowLines(windows: readonly UsageWindow[], usage: Usage, opts: LineOptions): string[] {
  const lines = windows.slice(0, WINDOWS_SHOWN).map((window) => windowLine(window, usage, opts));
  const left = windows.length - WINDOWS_SHOWN;
  if (left > 0) lines.push(`… and ${WHOLE.format(left)} more window${left === 1 ? "" : "s"} not shown (lembas usage --json lists them all)`);
  return lines;
}

function planLine(usage: Usage): string {
  if (usage.plan === null) return "no plan";
  const name = clean(usage.plan.name) || "unnamed";
  const monthly = creditsText(usage.plan.credits_per_month, undefined, usage);
  return `plan ${name}${monthly ? `, ${monthly} a month` : ""}`;
}

function spendText(spend: Usage["device"], usage: Usage): string {
  const parts = [tokens(spend.tokens_in, "in"), tokens(spend.tokens_out, "out"), creditsText(spend.cost, spend.cost_money, usage)];
  const shown = parts.filter((p): p is string => p !== null);
  return shown.length > 0 ? shown.join(", ") : "nothing reported";
}

function windowLine(window: UsageWindow, usage: Usage, opts: LineOptions): string {
  const name = clean(window.window) || "window";
  const spent = creditsText(window.spent, undefined, usage);
  const limit = creditsText(window.limit, undefined, usage);
  const spend = spent && limit ? `${spent} spent of ${limit}` : spent ? `${spent} spent` : limit ? `limit ${limit}` : "nothing reported";
  const frees = window.frees_at === null ? null : timeText(window.frees_at, opts);
  return `window ${name}: ${spend}${frees ? `, frees at ${frees}` : ""}`;
}

/** A token count: a whole number that is not negative; anything else is not shown. */
function tokens(n: number, way: "in" | "out"): string | null {
  if (!showable(n) || n < 0 || !Number.isInteger(n)) return null;
  return `${WHOLE.format(n)} tokens ${way}`;
}

/** A date as sent ("2026-12-01"), or an ISO time as "2026-12-01 20:00" in the local zone; null when it reads as neither. */
function timeText(text: string, opts: LineOptions): string | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const time = Date.parse(text);
  if (!Number.isFinite(time)) return null;
  const shown = new Intl.DateTimeFormat("sv-SE", { dateStyle: "short", timeStyle: "short", ...(opts.timeZone ? { timeZone: opts.timeZone } : {}) });
  return shown.format(time);
}

function unitWord(usage: Usage): string {
  const unit = clean(usage.unit);
  return /^[a-z][a-z ]{0,19}$/i.test(unit) ? unit : "credits";
}

/** An instance's words, as text on one line (no control characters, no bidi controls), and short. */
function clean(text: string): string {
  return terminalLine(text).trim().slice(0, 60);
}
