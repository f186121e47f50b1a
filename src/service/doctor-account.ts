/**
 * `lembas doctor`'s word on each login's account at its instance: whether it reports usage
 * (`GET /v1/usage`). An instance without it is fine; one whose answer cannot be had is a finding.
 */
import { loginLabel, readUsages } from "../account/usage-report.ts";
import type { UsageReading } from "../account/usage.ts";
import { accountWords } from "../account/usage-format.ts";
import type { Login } from "../store/logins.ts";
import type { Finding } from "./doctor.ts";

export async function checkAccounts(logins: readonly Login[]): Promise<Finding[]> {
  const usages = await readUsages(logins);
  return usages.map(({ login, reading }) => usageFinding(loginLabel(login), login.url, reading));
}

function usageFinding(label: string, url: string, reading: UsageReading): Finding {
  if (reading.kind === "absent") return { ok: true, text: `login ${label}: usage not available (the instance does not report it)` };
  if (reading.kind === "failed") {
    return { ok: false, text: `login ${label}: usage could not be read: ${reading.why}`, todo: `check your network, and that ${url} is up` };
  }
  return { ok: true, text: `login ${label}: usage available (${accountWords(reading.usage)}; lembas usage shows it)` };
}
