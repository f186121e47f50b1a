import type { Db } from "./db.ts";

/** Keeps a delete for each login, to be told to its client after the next initialize. */
export function keepDelete(db: Db, sessionId: string, logins: readonly string[]): void {
  const insert = db.query("INSERT INTO pending_deletes (session_id, login, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
  const now = Date.now();
  db.transaction(() => {
    for (const login of logins) insert.run(sessionId, login, now);
  }).immediate();
}

export function pendingDeletes(db: Db, login: string): string[] {
  return db
    .query<{ session_id: string }, [string]>("SELECT session_id FROM pending_deletes WHERE login = ? ORDER BY created_at")
    .all(login)
    .map((r) => r.session_id);
}

export function forgetDelete(db: Db, sessionId: string, login: string): void {
  db.query("DELETE FROM pending_deletes WHERE session_id = ? AND login = ?").run(sessionId, login);
}

/** Whether a session is waiting to be told deleted to some client (an announce must not revive it). */
export function isPendingDelete(db: Db, sessionId: string): boolean {
  return db.query("SELECT 1 FROM pending_deletes WHERE session_id = ? LIMIT 1").get(sessionId) !== null;
}

/** Forgets every delete kept for a login (it logged out, or its name now stands for another account). */
export function forgetDeletes(db: Db, login: string): void {
  db.query("DELETE FROM pending_deletes WHERE login = ?").run(login);
}

/** A login renamed is still told the deletes kept for it. */
export function renameDeletes(db: Db, from: string, to: string): void {
  db.query("UPDATE OR IGNORE pending_deletes SET login = ? WHERE login = ?").run(to, from);
  forgetDeletes(db, from);
}
