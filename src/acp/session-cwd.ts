import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { projectRoot } from "../engine/engine.ts";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";
import type { Db } from "../store/db.ts";
import { getSession } from "../store/sessions.ts";
import { invalid } from "./host.ts";

/**
 * The cwd of session/load, session/resume and session/fork, checked as session/new's is: ACP has
 * it "the working directory for this session", an absolute path, so it must be an existing
 * directory, and the session must be of the project the editor works in there: its root at or
 * under that directory's project (the directory holding .git above it). A session of another
 * project is refused with a sentence rather than run in a place the editor does not show. An
 * unknown session passes: opening it says there is none.
 */
export function checkSessionCwd(db: Db, sessionId: string, cwd: string, method: string): void {
  if (!isAbsolute(cwd)) throw invalid(`cwd must be an absolute path, not ${JSON.stringify(cwd)}`);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not an existing directory`);
  const row = getSession(db, sessionId);
  if (!row) return;
  const project = projectRoot(realOr(cwd));
  if (isInside(realOr(row.root), project)) return;
  throw invalid(`session ${sessionId} belongs to the project at ${row.root}, not to ${project}, where cwd ${cwd} is: ${method} it from an editor opened in ${row.root}`);
}
