import type { Db } from "./db.ts";

/**
 * What the person typed in a project's sessions, newest first: each user message's text as typed
 * (`display` when the model was sent something else, a command's body or attached files) and what
 * a quit left unsent, at most `limit` rows, duplicates included (the caller folds them).
 */
export function recentPrompts(db: Db, root: string, limit: number): string[] {
  return db
    .query<{ typed: string | null }, [string, string, number]>(
      // A body that is not JSON (a disk error, a hand edit) is passed over: json_extract would fail the whole query on it.
      `SELECT typed FROM (
         SELECT CASE WHEN json_valid(m.body) THEN coalesce(json_extract(m.body, '$.display'), json_extract(m.body, '$.text')) END AS typed, m.created_at AS at, m.id AS n
           FROM messages m JOIN sessions s ON s.id = m.session_id
          WHERE s.root = ? AND m.role = 'user'
         UNION ALL
         SELECT u.text, u.created_at, u.id FROM unsent_prompts u WHERE u.root = ?)
        ORDER BY at DESC, n DESC
        LIMIT ?`,
    )
    .all(root, root, limit)
    .flatMap((row) => (typeof row.typed === "string" ? [row.typed] : []));
}

/** Keeps what a quit left unsent in a session, in the order entered, for its project's prompt history. */
export function keepUnsentPrompts(db: Db, session: { id: string; root: string }, texts: readonly string[], now = Date.now()): void {
  const insert = db.query("INSERT INTO unsent_prompts (session_id, root, text, created_at) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (const text of texts) insert.run(session.id, session.root, text, now);
  })();
}
