import type { Db } from "./db.ts";

/** What the person said of sharing a session: shared by name (/share, --share) or stopped (/unshare). */
export type ShareChoice = "by-name" | "stopped";

export function getShareChoice(db: Db, sessionId: string): ShareChoice | null {
  const row = db.query<{ choice: ShareChoice }, [string]>("SELECT choice FROM share_choices WHERE session_id = ?").get(sessionId);
  return row?.choice ?? null;
}

/** Keeps a choice; a session no longer in the store keeps none (its row would have nothing to hang on). */
export function setShareChoice(db: Db, sessionId: string, choice: ShareChoice): void {
  db.query(
    `INSERT INTO share_choices (session_id, choice, updated_at) SELECT id, ?, ? FROM sessions WHERE id = ?
     ON CONFLICT (session_id) DO UPDATE SET choice = excluded.choice, updated_at = excluded.updated_at`,
  ).run(choice, Date.now(), sessionId);
}
