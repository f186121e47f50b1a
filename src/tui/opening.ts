import type { TerminalArgs } from "../app/terminal-args.ts";
import { UserError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { getSession, listSessions } from "../store/sessions.ts";

/** Which session the terminal opens: a new one, the directory's most recent, or one by id. */
/** fork: a new session from the id's whole conversation (`lembas -r ID --fork`), the original left as it was. */
export type Opening = { kind: "new" } | { kind: "continue" } | { kind: "resume"; id: string } | { kind: "fork"; id: string };

/** The session `lembas`'s arguments open. */
export function openingOf(args: TerminalArgs): Opening {
  if (args.continue) return { kind: "continue" };
  if (typeof args.resume === "string") return { kind: args.fork ? "fork" : "resume", id: args.resume };
  return { kind: "new" };
}

/**
 * Says, from the store alone, whether `opening` can be opened: a session id that is not there,
 * or no session here to continue, is its UserError (exit 2) before any screen is drawn.
 */
export function checkOpening(db: () => Db, cwd: string, opening: Opening): void {
  if (opening.kind === "continue") latestIn(db(), cwd);
  else if ((opening.kind === "resume" || opening.kind === "fork") && !getSession(db(), opening.id)) {
    throw new UserError(`there is no session ${opening.id} (lembas sessions list shows them)`, 2);
  }
}

/** The id of the most recent session of `cwd` (other than `except`); none is a UserError. */
export function latestIn(db: Db, cwd: string, except?: string): string {
  const latest = listSessions(db, { limit: 200 }).find((s) => s.cwd === cwd && s.id !== except);
  if (!latest) throw new UserError(`there is no session in ${cwd} to continue`, 2);
  return latest.id;
}
