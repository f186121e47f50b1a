import type { Db } from "./db.ts";

/** Marks that a login's client was given a session (made, opened or shared on its link). */
export function markGiven(db: Db, sessionId: string, login: string): void {
  db.query("INSERT INTO client_marks (session_id, login, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(sessionId, login, Date.now());
}

export function wasGiven(db: Db, sessionId: string, login: string): boolean {
  return db.query("SELECT 1 FROM client_marks WHERE session_id = ? AND login = ?").get(sessionId, login) !== null;
}

/** The logins whose clients were given a session. */
export function givenTo(db: Db, sessionId: string): string[] {
  return db
    .query<{ login: string }, [string]>("SELECT login FROM client_marks WHERE session_id = ?")
    .all(sessionId)
    .map((r) => r.login);
}
