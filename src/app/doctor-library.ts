import { existsSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import { selectLibrary } from "../library/selection.ts";
import { openDb } from "../store/db.ts";
import { getInstanceLibrary } from "../store/instance-library.ts";
import { documentCount } from "../store/library.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * Which library the agent uses, by what the store keeps of the logins (no network): the account's
 * (and how its token was found to have it), `library: lembas` that no login can serve (a fix), or
 * the device's when it holds documents. Nothing to say: no line.
 */
export function checkLibrary(config: Config, dbFile: string): Finding[] {
  if (!existsSync(dbFile)) return config.library === "lembas" ? [noLogin()] : [];
  const db = openDb(dbFile);
  try {
    const selection = selectLibrary(config, db);
    if (selection.choice === "none") return [];
    const notes: Finding[] = "note" in selection && selection.note ? [{ ok: true, text: `library: ${selection.note}` }] : [];
    if (selection.choice === "local") {
      const documents = documentCount(db);
      return [...(documents > 0 ? [{ ok: true as const, text: `library: the device's own, ${documents} document${documents === 1 ? "" : "s"}` }] : []), ...notes];
    }
    if (!selection.login) return [noLogin()];
    const how = getInstanceLibrary(db, selection.login.url)?.how === "tools" ? "its /mcp lists a library tool" : "its token has the library scope";
    return [{ ok: true, text: `library: the account's, on ${selection.login.name} (${selection.login.url}/mcp): ${how}` }, ...notes];
  } finally {
    db.close();
  }
}

function noLogin(): Finding {
  return { ok: false, text: "library: lembas is set, but no login's token has the library scope", todo: "lembas login to an instance with a device token that has it, or set library: local in config.yaml" };
}
