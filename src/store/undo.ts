import { existsSync, lstatSync, readFileSync } from "node:fs";
import type { Db } from "./db.ts";

/** The largest file whose pre-image is kept; a larger one is noted, not copied. */
export const UNDO_MAX_FILE = 32 * 1024 * 1024;
/** How many turns of a session keep their pre-images: older ones can no longer be undone. */
export const UNDO_TURNS_KEPT = 20;

export type PreImage = { path: string; existed: boolean; content: Uint8Array | null; mode: number | null };

/**
 * Keeps a file's content as it was before the turn first changed it (later changes in the same
 * turn keep the first pre-image). Absent files are kept as "did not exist".
 */
export function recordPreImage(db: Db, sessionId: string, turnId: string, image: PreImage): void {
  db.query(
    `INSERT INTO undo_files (session_id, turn_id, path, existed, content, mode, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(sessionId, turnId, image.path, image.existed ? 1 : 0, image.content, image.mode, Date.now());
}

export function hasPreImage(db: Db, sessionId: string, turnId: string, path: string): boolean {
  return (
    db.query("SELECT 1 FROM undo_files WHERE session_id = ? AND turn_id = ? AND path = ?").get(sessionId, turnId, path) !== null
  );
}

/** Reads a file's current state as a pre-image. */
export function readPreImage(path: string): PreImage {
  if (!existsSync(path)) return { path, existed: false, content: null, mode: null };
  const stat = lstatSync(path);
  if (!stat.isFile() || stat.size > UNDO_MAX_FILE) return { path, existed: true, content: null, mode: stat.mode & 0o7777 };
  return { path, existed: true, content: readFileSync(path), mode: stat.mode & 0o7777 };
}

type RawImage = { path: string; existed: number; content: Uint8Array | null; mode: number | null };

export function preImagesOf(db: Db, sessionId: string, turnId: string): PreImage[] {
  return db
    .query<RawImage, [string, string]>(
      "SELECT path, existed, content, mode FROM undo_files WHERE session_id = ? AND turn_id = ? ORDER BY path",
    )
    .all(sessionId, turnId)
    .map((r) => ({ path: r.path, existed: r.existed === 1, content: r.content, mode: r.mode }));
}

export function forgetPreImages(db: Db, sessionId: string, turnId: string): void {
  db.query("DELETE FROM undo_files WHERE session_id = ? AND turn_id = ?").run(sessionId, turnId);
}

/** Drops the pre-images of all but the session's last UNDO_TURNS_KEPT turns that have any. */
export function trimPreImages(db: Db, sessionId: string): void {
  db.query(
    `DELETE FROM undo_files WHERE session_id = ?1 AND turn_id NOT IN (
       SELECT turn_id FROM undo_files WHERE session_id = ?1 GROUP BY turn_id ORDER BY max(created_at) DESC LIMIT ${UNDO_TURNS_KEPT}
     )`,
  ).run(sessionId);
}
