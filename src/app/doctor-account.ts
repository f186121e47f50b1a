/**
 * `lembas doctor`'s word on each login's account at its instance: whether it reports usage
 * (`GET /v1/usage`) and has personalization (`GET /v1/me/personalization`). An instance without
 * them is fine; one whose answer cannot be had is a finding.
 */
import { loginLabel, readUsages } from "../account/usage-report.ts";
import type { UsageReading } from "../account/usage.ts";
import { accountWords } from "../account/usage-format.ts";
import { fetchPersonalization, type PersonalizationReading } from "../account/personalization.ts";
import type { Login } from "../store/logins.ts";
import type { Finding } from "./doctor-finding.ts";

export async function checkAccounts(logins: readonly Login[]): Promise<Finding[]> {
  const [usages, personal] = await Promise.all([readUsages(logins), Promise.all(logins.map((login) => fetchPersonalization(login)))]);
  return usages.flatMap(({ login, reading }, i) => {
    const label = loginLabel(login);
    const found = [usageFinding(label, login.url, reading)];
    const personalization = personal[i];
    if (personalization) found.push(personalizationFinding(label, login.url, personalization));
    return found;
  });
}

function personalizationFinding(label: string, url: string, reading: PersonalizationReading): Finding {
  if (reading.kind === "absent") return { ok: true, text: `login ${label}: personalization not available (the instance does not serve it)` };
  if (reading.kind === "refused") return { ok: true, text: `login ${label}: personalization not available (${reading.why})` };
  if (reading.kind === "failed") {
    return { ok: false, text: `login ${label}: personalization could not be read: ${reading.why}`, todo: `check your network, and that ${url} is up; the last copy read applies meanwhile` };
  }
  const { value } = reading;
  if (!value.available) return { ok: true, text: `login ${label}: personalization not available to this account` };
  return { ok: true, text: `login ${label}: personalization available, ${value.enabled ? "enabled" : "disabled (no personality nor instructions are sent)"}` };
}

function usageFinding(label: string, url: string, reading: UsageReading): Finding {
  if (reading.kind === "absent") return { ok: true, text: `login ${label}: usage not available (the instance does not report it)` };
  if (reading.kind === "failed") {
    return { ok: false, text: `login ${label}: usage could not be read: ${reading.why}`, todo: `check your network, and that ${url} is up` };
  }
  return { ok: true, text: `login ${label}: usage available (${accountWords(reading.usage)}; lembas usage shows it)` };
}
