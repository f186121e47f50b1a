import { z } from "zod";
import { lazily } from "../lazy.ts";
import { realOr } from "../real-path.ts";
import type { Db } from "../store/db.ts";
import { listSessions, type SessionRow } from "../store/sessions.ts";
import { invalid } from "./host.ts";

/** Sessions a session/list answer holds; the cursor is where the next page starts. */
const PAGE = 100;
/** The most sessions looked through for one list (the store's newest first). */
const MOST = 10_000;

export const ListParams = lazily(() => z.looseObject({ cwd: z.string().nullish(), cursor: z.string().nullish() }));
/** mcpServers: checked by src/mcp/from-editor.ts's editorServers, as session/new's are. */
export const ResumeParams = lazily(() => z.looseObject({ sessionId: z.string().min(1), cwd: z.string(), mcpServers: z.unknown().optional() }));

/**
 * session/list: the sessions kept in the store, newest first, those of a directory where one is
 * given (its sessions and those of the project it is the root of), a page at a time.
 */
export function listPast(db: Db, params: z.infer<ReturnType<typeof ListParams>>) {
  const start = params.cursor ? Number(params.cursor) : 0;
  if (!Number.isSafeInteger(start) || start < 0) throw invalid(`the cursor ${quotedCursor(params.cursor ?? "")} is not one this agent gave`);
  // Sessions are kept where their directory really is, and an editor may name it through a symlink.
  const dirs = params.cwd ? new Set([params.cwd, realOr(params.cwd)]) : null;
  const rows = listSessions(db, { limit: MOST }).filter((s) => dirs === null || dirs.has(s.cwd) || dirs.has(s.root));
  const page = rows.slice(start, start + PAGE);
  return {
    sessions: page.map(sessionInfo),
    ...(start + PAGE < rows.length ? { nextCursor: String(start + PAGE) } : {}),
  };
}

function sessionInfo(row: SessionRow) {
  return {
    sessionId: row.id,
    cwd: row.cwd,
    title: row.title,
    updatedAt: new Date(row.updatedAt).toISOString(),
    _meta: { lembas: { root: row.root, model: row.model, mode: row.mode, origin: row.origin } },
  };
}

/** A cursor as an error quotes it: its start only, so that an answer never grows with what was sent. */
function quotedCursor(cursor: string): string {
  return cursor.length > 40 ? `${JSON.stringify(cursor.slice(0, 40))}… (${cursor.length} characters)` : JSON.stringify(cursor);
}
