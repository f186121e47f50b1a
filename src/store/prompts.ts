import type { Db } from "./db.ts";

/**
 * What the person typed in a project's sessions, newest first: each user message's text as typed
 * (`display` when the model was sent something else, a command's body or attached files), at most
 * `limit` rows, duplicates included (the caller folds them).
 */
export function recentPrompts(db: Db, root: string, limit: number): string[] {
  return db
    .query<{ typed: string | null }, [string, number]>(
      // A body that is not JSON (a disk error, a hand edit) is passed over: json_extract would fail the whole query on it.
      `SELECT CASE WHEN json_valid(m.body) THEN coalesce(json_extract(m.body, '$.display'), json_extract(m.body, '$.text')) END AS typed
         FROM messages m JOIN sessions s ON s.id = m.session_id
        WHERE s.root = ? AND m.role = 'user'
        ORDER BY m.created_at DESC, m.id DESC
        LIMIT ?`,
    )
    .all(root, limit)
    .flatMap((row) => (typeof row.typed === "string" ? [row.typed] : []));
}
