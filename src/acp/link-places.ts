import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import type { Remote } from "../config/schema.ts";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";
import type { Db } from "../store/db.ts";
import { anyTrusted } from "../store/trust.ts";
import { type AgentHost, invalid } from "./host.ts";
import { judge, sessionRefusal } from "./places.ts";

/** session/new's cwd: absolute; on the link a place `judge` accepts, elsewhere an existing directory. */
export function checkCwd(cwd: string, host: AgentHost): string {
  if (!isAbsolute(cwd)) throw invalid(`cwd must be an absolute path, not ${JSON.stringify(cwd)}`);
  if (host.transport === "link") {
    const verdict = judge(cwd, host.config.remote, host.db);
    if (!verdict.accepted) throw invalid(verdict.reason);
    return cwd;
  }
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not an existing directory`);
  return cwd;
}

/**
 * What each request on a session the link holds asks again (null where trust is not asked): its
 * project may have been untrusted since it was attached (`lembas untrust` while the service runs).
 * The directories whose trust covers it are named once; a request costs one lookup of the store's
 * key, and only when that finds none the full rule of `sessionRefusal` (a row stored through a
 * symlink; the sentence session/new would answer). Null from the check: the session may go on.
 */
export function placeCheck(session: { id: string; cwd: string; root: string }, remote: Remote, db: Db): (() => string | null) | null {
  if (!remote.require_trust) return null;
  const root = realOr(session.root);
  const cwd = realOr(session.cwd);
  // The root holds the cwd, unless a symlink below it leads elsewhere: then both must be trusted.
  const covering = (isInside(cwd, root) ? [root] : [root, cwd]).map(withAncestors);
  return () => (covering.every((dirs) => anyTrusted(db, dirs)) ? null : sessionRefusal(session, remote, db));
}

/** PATH and every directory above it. */
function withAncestors(path: string): string[] {
  const dirs = [path];
  for (let dir = dirname(path); dir !== dirs.at(-1); dir = dirname(dir)) dirs.push(dir);
  return dirs;
}
