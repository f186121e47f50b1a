import type { PersonalSettings } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import type { PersonalLogin } from "./personal-source.ts";
import type { PersonalizationOptions } from "./personalization.ts";

/**
 * The engine's source of personal settings (personal-source.ts), its code loaded only when there
 * are logins: with none, config.yaml's keys apply, which is what that source says too, and a
 * process serving an editor without a login does not load the instances' client before its first
 * answer.
 */
export function personalEntry(db: Db, local: PersonalSettings, logins: () => PersonalLogin[], opts: PersonalizationOptions = {}): () => PersonalSettings | Promise<PersonalSettings> {
  let source: Promise<() => PersonalSettings> | null = null;
  return () => {
    let current: PersonalLogin[];
    try {
      current = logins();
    } catch {
      return local;
    }
    if (current.length === 0) return local;
    source ??= import("./personal-source.ts").then((m) => m.personalSource(db, local, logins, opts));
    return source.then((personal) => personal());
  };
}
