import type { Config } from "../config/schema.ts";
import type { Db } from "../store/db.ts";
import { listLogins, type Login } from "../store/logins.ts";
import { AccountLibrary } from "./account.ts";
import { libraryLogins } from "./account-check.ts";
import { libraryChoice } from "./choice.ts";

/**
 * Which library the agent uses, by the store's copies alone (account-check.ts): `note` says what a
 * person may want to know (which of several logins), `problem` why the account's cannot be used.
 */
export type LibrarySelection =
  | { choice: "local"; note?: string }
  | { choice: "lembas"; login: Login; note?: string }
  | { choice: "lembas"; login: null; problem: string }
  | { choice: "none" };

/**
 * The rule (choice.ts), with the logins: nothing written and exactly one login whose token has the
 * library scope → that account's; several → none of them unasked (the device's); `library: lembas`
 * → the first of them in login order (none: the problem); `library: local` → the device's.
 */
export function selectLibrary(config: Config, db: Db): LibrarySelection {
  const able = config.library === "local" ? [] : libraryLogins(db, listLogins(db));
  const choice = libraryChoice({ configured: config.library, accountLibrary: able.length === 1, localDocuments: true });
  if (choice === "none") return { choice };
  if (choice === "local") {
    if (able.length > 1) return { choice, note: `the logins ${names(able)} each have the account's library, so none is used unasked: library: lembas in config.yaml uses the first (${able[0]?.name})` };
    return { choice };
  }
  const login = able[0];
  if (!login) {
    return { choice, login: null, problem: "library: lembas is set, but no login's token has the library scope: lembas login to an instance with a device token that has it, or set library: local" };
  }
  if (able.length > 1) return { choice, login, note: `the logins ${names(able)} each have the account's library: ${login.name}'s, the first logged in, is used` };
  return { choice, login };
}

function names(logins: readonly Login[]): string {
  return logins.map((l) => l.name).join(", ");
}

/** The account's library on the login's instance, with config.yaml's `mcp_timeouts` (it is an MCP server). */
export function accountLibrary(config: Pick<Config, "mcp_timeouts">, login: Login): AccountLibrary {
  return new AccountLibrary(login, { startMs: config.mcp_timeouts.start * 1000, callMs: config.mcp_timeouts.call * 1000 });
}
