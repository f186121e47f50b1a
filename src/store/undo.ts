import { lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import type { Db } from "./db.ts";

/** The largest file whose pre-image is kept; a larger one is noted, not copied. */
export const UNDO_MAX_FILE = 32 * 1024 * 1024;
/** How many turns of a session keep their pre-images: older ones can no longer be undone. */
export const UNDO_TURNS_KEPT = 20;
/** The most pre-image bytes one turn keeps: past it, a file's earlier content is not kept (and said). */
export const UNDO_TURN_MAX_BYTES = 256 * 1024 * 1024;
/** The most pre-image bytes a session keeps: older turns are forgotten past it (the last one never). */
export const UNDO_MAX_BYTES = 1024 * 1024 * 1024;

/**
 * A file as it was before the turn first changed it. `content` null with `existed` means it cannot
 * be restored, and `missing` says why. `refused`: undo leaves the file alone whatever it holds, and
 * says this sentence (a file moved in from outside the project, whose only copy it may be).
 * A directory's path ends with a slash: `existed` says whether it was there before the turn, `mode`
 * its mode then, and it has no content (what it held is kept file by file).
 */
export type PreImage = { path: string; existed: boolean; content: Uint8Array | null; mode: number | null; missing?: string; refused?: string };

/** A file as the turn left it: what undo compares with before it touches the file. */
export type Stamp = { existed: boolean; size: number | null; mtime: number | null; hash: string | null };

/**
 * Keeps a file's content as it was before the turn first changed it (later changes in the same
 * turn keep the first pre-image). Absent files are kept as "did not exist". With a stamp when the
 * change is already made (a command's).
 */
export function recordPreImage(db: Db, sessionId: string, turnId: string, image: PreImage, stamp?: Stamp): void {
  db.query(
    `INSERT INTO undo_files (session_id, turn_id, path, existed, content, mode, missing_why, refused_why, created_at,
                             after_existed, after_size, after_mtime, after_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(
    sessionId,
    turnId,
    image.path,
    image.existed ? 1 : 0,
    image.content,
    image.mode,
    image.missing ?? null,
    image.refused ?? null,
    Date.now(),
    stamp ? (stamp.existed ? 1 : 0) : null,
    stamp?.size ?? null,
    stamp?.mtime ?? null,
    stamp?.hash ?? null,
  );
}

export function hasPreImage(db: Db, sessionId: string, turnId: string, path: string): boolean {
  return (
    db.query("SELECT 1 FROM undo_files WHERE session_id = ? AND turn_id = ? AND path = ?").get(sessionId, turnId, path) !== null
  );
}

/** Reads a file's current state as a pre-image. */
export function readPreImage(path: string): PreImage {
  // lstat, not exists: a dangling symlink exists (undo must not take it for a file the turn made).
  const stat = lstatOrNull(path);
  if (!stat) return { path, existed: false, content: null, mode: null };
  const mode = stat.mode & 0o7777;
  if (!stat.isFile()) return { path, existed: true, content: null, mode, missing: "it is not a regular file" };
  if (stat.size > UNDO_MAX_FILE) return { path, existed: true, content: null, mode, missing: "it is larger than 32 MiB" };
  return { path, existed: true, content: readFileSync(path), mode };
}

/** A path's own stat (a symlink's, not its target's), or null when there is nothing there. */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Records how the turn left a file (after each change it makes; the last one counts). */
export function recordStamp(db: Db, sessionId: string, turnId: string, path: string, stamp: Stamp): void {
  db.query(
    `UPDATE undo_files SET after_existed = ?, after_size = ?, after_mtime = ?, after_hash = ?
     WHERE session_id = ? AND turn_id = ? AND path = ?`,
  ).run(stamp.existed ? 1 : 0, stamp.size, stamp.mtime, stamp.hash, sessionId, turnId, path);
}

/** A file's stamp now: size, mtime and a hash of its content (of its stat, for one too large to read). */
export function stampOf(path: string): Stamp {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path, { bigint: true });
  } catch {
    return { existed: false, size: null, mtime: null, hash: null };
  }
  const size = Number(stat.size);
  const mtime = Number(stat.mtimeMs);
  const hasher = new Bun.CryptoHasher("sha256");
  try {
    if (stat.isSymbolicLink()) hasher.update(`link:${readlinkSync(path)}`);
    else if (stat.isFile() && size <= UNDO_MAX_FILE) hasher.update(readFileSync(path));
    else hasher.update(`stat:${stat.ino}:${stat.mtimeNs}:${stat.mode}`);
  } catch {
    // Unreadable now: a stamp no later state will match, so undo leaves the file alone.
    hasher.update(`unreadable:${Math.random()}`);
  }
  return { existed: true, size, mtime, hash: hasher.digest("hex") };
}

/** Whether a file is still as a stamp says (its content, not its mtime, decides). */
export function sameStamp(a: Stamp, b: Stamp): boolean {
  if (a.existed !== b.existed) return false;
  return !a.existed || (a.size === b.size && a.hash === b.hash);
}

export type StoredImage = PreImage & { stamp: Stamp | null };

type RawImage = {
  path: string;
  existed: number;
  content: Uint8Array | null;
  mode: number | null;
  missing_why: string | null;
  refused_why: string | null;
  after_existed: number | null;
  after_size: number | null;
  after_mtime: number | null;
  after_hash: string | null;
};

export function preImagesOf(db: Db, sessionId: string, turnId: string): StoredImage[] {
  return db
    .query<RawImage, [string, string]>(
      `SELECT path, existed, content, mode, missing_why, refused_why, after_existed, after_size, after_mtime, after_hash
       FROM undo_files WHERE session_id = ? AND turn_id = ? ORDER BY path`,
    )
    .all(sessionId, turnId)
    .map((r) => ({
      path: r.path,
      existed: r.existed === 1,
      content: r.content,
      mode: r.mode,
      ...(r.missing_why ? { missing: r.missing_why } : {}),
      ...(r.refused_why ? { refused: r.refused_why } : {}),
      stamp: r.after_existed === null ? null : { existed: r.after_existed === 1, size: r.after_size, mtime: r.after_mtime, hash: r.after_hash },
    }));
}

export function forgetPreImages(db: Db, sessionId: string, turnId: string): void {
  db.query("DELETE FROM undo_files WHERE session_id = ? AND turn_id = ?").run(sessionId, turnId);
  db.query("DELETE FROM undo_turns WHERE session_id = ? AND turn_id = ?").run(sessionId, turnId);
}

/** Notes that a turn's undo data was dropped or never recorded, and why (the first reason stays). */
export function markTurn(db: Db, sessionId: string, turnId: string, why: string): void {
  db.query("INSERT INTO undo_turns (session_id, turn_id, why, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
    sessionId,
    turnId,
    why,
    Date.now(),
  );
}

export function turnMarkOf(db: Db, sessionId: string, turnId: string): string | null {
  return db.query<{ why: string }, [string, string]>("SELECT why FROM undo_turns WHERE session_id = ? AND turn_id = ?").get(sessionId, turnId)?.why ?? null;
}

export const TRIMMED = `its undo data was dropped to keep the session's bound (the last ${UNDO_TURNS_KEPT} turns, ${UNDO_MAX_BYTES / 1024 / 1024 / 1024} GiB): what it changed cannot be undone`;

/**
 * Drops the pre-images of all but the session's last UNDO_TURNS_KEPT turns that have any, and of
 * the older turns past `maxBytes` of content (the last turn is always kept). Each turn dropped is
 * marked, so that its undo says so.
 */
export function trimPreImages(db: Db, sessionId: string, maxBytes = UNDO_MAX_BYTES): void {
  db.transaction(() => {
    const dropped = db
      .query<{ turn_id: string }, [string, number]>(
        `SELECT turn_id FROM (
           SELECT turn_id,
                  row_number() OVER newest AS rank,
                  sum(sum(coalesce(length(content), 0))) OVER newest AS running
           FROM undo_files WHERE session_id = ?1 GROUP BY turn_id
           WINDOW newest AS (ORDER BY max(created_at) DESC, turn_id DESC ROWS UNBOUNDED PRECEDING)
         ) WHERE rank > 1 AND (rank > ${UNDO_TURNS_KEPT} OR running > ?2)`,
      )
      .all(sessionId, maxBytes);
    for (const { turn_id } of dropped) {
      db.query("DELETE FROM undo_files WHERE session_id = ? AND turn_id = ?").run(sessionId, turn_id);
      markTurn(db, sessionId, turn_id, TRIMMED);
    }
  })();
}
