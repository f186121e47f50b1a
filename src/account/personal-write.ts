/**
 * A change of `personality`, `personality_custom` or `instructions` (`lembas config set`,
 * /settings) while an instance's personalization applies: written back to that instance with a PUT
 * of the one field and `enabled: true`, and config.yaml is left as it is.
 */
import { PERSONALITY_NAMES } from "../config/personalities.ts";
import type { PersonalSettings } from "../config/schema.ts";
import { withoutControls } from "../controls.ts";
import { UserError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { getPersonalization, setPersonalization } from "../store/personalization.ts";
import { cachedApplied, type PersonalLogin, refreshPersonalization } from "./personal-source.ts";
import { type PersonalField, type PersonalizationOptions, putPersonalization } from "./personalization.ts";

/** What became of the change: for config.yaml (no instance applies), or saved to the instance (its line). */
export type PersonalWrite = { kind: "local" } | { kind: "saved"; line: string };

/**
 * Writes `value` back when an instance applies. Whether one does is read afresh (a login whose
 * instance cannot be reached counts by its last copy). A refusal throws, and nothing changes.
 */
export async function writePersonal(db: Db, local: PersonalSettings, logins: readonly PersonalLogin[], field: PersonalField, value: unknown, opts: PersonalizationOptions = {}): Promise<PersonalWrite> {
  if (logins.length === 0) return { kind: "local" };
  await refreshPersonalization(db, logins, opts);
  const applied = cachedApplied(db, local, logins);
  if (applied.source.kind === "local") return { kind: "local" };
  const { name, url } = applied.source.login;
  const login = logins.find((l) => l.url === url);
  if (!login) return { kind: "local" };
  const text = value === null ? "" : typeof value === "string" ? value : String(value);
  if (field === "personality" && text !== "" && !PERSONALITY_NAMES.includes(text)) {
    throw new UserError(`personality must be one of ${PERSONALITY_NAMES.join(", ")}: ${name}'s personalization was not changed`);
  }
  const written = await putPersonalization(login, field, text, opts);
  if (!written.ok) throw new UserError(`${field} was not saved to ${name} (${url}): ${written.why}`);
  const kept = written.value ?? getPersonalization(db, url)?.value;
  if (kept) setPersonalization(db, url, written.value ?? { ...kept, enabled: true, [field]: text });
  // A 200 whose body says otherwise: what the instance keeps is what applies, and what is said.
  const answered = written.value;
  if (answered && ((answered[field] ?? "") !== text || !answered.enabled)) {
    const now = answered[field] ?? "";
    const off = answered.enabled ? "" : ", with personalization off";
    return { kind: "saved", line: `${field} was sent to ${name} (${url}), but it answered ${field} = ${now === "" ? "not set" : withoutControls(now)}${off}: that is what a new session uses (config.yaml was not changed)` };
  }
  return { kind: "saved", line: `${field} = ${text === "" ? "not set" : text} (saved to ${name} (${url}); config.yaml was not changed; a new session uses it)` };
}
