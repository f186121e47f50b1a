/**
 * The store's copy of each login's personalization, kept fresh in the background: a session's
 * system prompt is made from the copy already kept (never waiting on the network), and the same
 * moment starts one read of every login's instance, whose answer the next session takes.
 */
import type { PersonalSettings } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { forgetPersonalization, getPersonalization, setPersonalization } from "../store/personalization.ts";
import { type AppliedSettings, appliedSettings } from "./personal-settings.ts";
import { fetchPersonalization, type PersonalizationOptions, type PersonalizationReading } from "./personalization.ts";

export type PersonalLogin = { name: string; url: string; token: string };

/** Which settings apply, from the store's copies alone. */
export function cachedApplied(db: Db, local: PersonalSettings, logins: readonly PersonalLogin[]): AppliedSettings {
  return appliedSettings(
    local,
    logins.map(({ name, url }) => ({ login: { name, url }, value: getPersonalization(db, url)?.value ?? null })),
  );
}

/** Reads every login's instance and keeps what it said: a 404 or 403 drops the copy, a failure keeps the last good one. */
export async function refreshPersonalization(db: Db, logins: readonly PersonalLogin[], opts: PersonalizationOptions = {}): Promise<{ login: PersonalLogin; reading: PersonalizationReading }[]> {
  return Promise.all(
    logins.map(async (login) => {
      const reading = await fetchPersonalization(login, opts);
      try {
        if (reading.kind === "personalization") setPersonalization(db, login.url, reading.value);
        if (reading.kind === "absent" || reading.kind === "refused") forgetPersonalization(db, login.url);
      } catch {
        // a store closed as lembas ends: the next session reads again
      }
      return { login, reading };
    }),
  );
}

/**
 * The engine's source of personal settings, called once as each session makes its system prompt
 * (at its first model request): the copy in the store applies, and a read of every instance starts
 * in the background for the next session.
 */
export function personalSource(db: Db, local: PersonalSettings, logins: () => PersonalLogin[], opts: PersonalizationOptions = {}): () => PersonalSettings {
  return () => {
    try {
      const current = logins();
      if (current.length > 0) void refreshPersonalization(db, current, opts);
      return cachedApplied(db, local, current).settings;
    } catch {
      return local;
    }
  };
}
