/**
 * Usage as the front ends say it, one login at a time: `lembas usage`, /usage, `lembas status`'s
 * balance line and `lembas doctor`'s finding all read it here, so that they say the same.
 */
import { fetchUsage, type UsageOptions, type UsageReading } from "./usage.ts";
import { balanceFigure, type LineOptions, usageLines } from "./usage-format.ts";

export type UsageLoginRef = { name: string; url: string; token: string };
export type LoginUsage = { login: UsageLoginRef; reading: UsageReading };

/** Every login's usage, asked at once. */
export function readUsages(logins: readonly UsageLoginRef[], opts: UsageOptions = {}): Promise<LoginUsage[]> {
  return Promise.all(logins.map(async (login) => ({ login, reading: await fetchUsage(login, opts) })));
}

/** "lembas (https://…)": how a login is named in these lines. */
export function loginLabel(login: UsageLoginRef): string {
  return `${login.name} (${login.url})`;
}

/**
 * What `lembas usage` prints of one login: its label, then the usage indented under it. A 404 is
 * one sentence; a failure is `failed` (for stderr), with nothing to print.
 */
export function usageReport(item: LoginUsage, opts: LineOptions = {}): { lines: string[]; failed: string | null } {
  const label = loginLabel(item.login);
  const { reading } = item;
  if (reading.kind === "absent") return { lines: [`${label} does not report usage`], failed: null };
  if (reading.kind === "failed") return { lines: [], failed: `the usage of ${label} could not be read: ${reading.why}` };
  return { lines: [label, ...usageLines(reading.usage, opts).map((line) => `  ${line}`)], failed: null };
}

/** `lembas status`'s line under a login. */
export function balanceLine(reading: UsageReading): string {
  if (reading.kind === "absent") return "balance: the instance does not report usage";
  if (reading.kind === "failed") return `balance: could not be read (${reading.why})`;
  const figure = balanceFigure(reading.usage);
  if (figure) return `balance ${figure}`;
  return reading.usage.plan === null ? "balance: none (no plan)" : "balance: not reported";
}
