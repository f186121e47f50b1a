import type { Db } from "./db.ts";

/**
 * Marks that a login's client was given a session (made, opened or shared on its link). A mark is
 * the login's while it stands: forgotten at its logout, and when its name goes to another account
 * (store/logins.ts).
 */
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

/**
 * The logins there are now whose clients were given a session: a mark left under a name no login
 * has (a logout before logouts forgot them) counts for nobody.
 */
export function givenToLogins(db: Db, sessionId: string): string[] {
  return db
    .query<{ login: string }, [string]>("SELECT m.login FROM client_marks m JOIN logins l ON l.name = m.login WHERE m.session_id = ?")
    .all(sessionId)
    .map((r) => r.login);
}

/** Forgets every mark of a login (it logged out, or its name now stands for another account). */
export function forgetMarks(db: Db, login: string): void {
  db.query("DELETE FROM client_marks WHERE login = ?").run(login);
}

/** A login renamed keeps its marks under its new name. */
export function renameMarks(db: Db, from: string, to: string): void {
  db.query("UPDATE OR IGNORE client_marks SET login = ? WHERE login = ?").run(to, from);
  forgetMarks(db, from);
}
