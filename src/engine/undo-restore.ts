import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";
import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { jobsNotRestored } from "./undo-jobs.ts";
import { TRASH_MAX_BYTES, UndoTrash } from "./undo-trash.ts";
import { forgetPreImages, lstatOrNull, preImagesOf, type StoredImage, sameStamp, stampOf, turnMarkOf } from "../store/undo.ts";

/** A file undo did not touch, and why. */
export type Skipped = { path: string; why: string };
/** `trash`: where what undo replaced or deleted was put first, when it replaced or deleted anything. */
export type Restored = { files: string[]; skipped: Skipped[]; trash?: string };
/** What /undo answers: the undone turn's prompt, the files put back, and those left alone and why. */
export type Undone = Restored & { prompt: string };

/** What `skipped` names when what is said is of the turn, not of one file (its undo data was dropped). */
export const WHOLE_TURN = "(the whole turn)";

/**
 * Puts back every file the turn changed, byte for byte, and deletes the files it created, but only
 * files still as the turn left them: one changed since (by the person, by another program) is left
 * alone and said, as is one whose earlier content was not kept. A file that cannot be restored is
 * said too, and the others are restored all the same: undo always answers. What the turn's
 * background jobs changed is not restored, and each job is named.
 * `leave`: files to leave as they are whatever they hold, unsaid (a rewind's pass over a later turn
 * left them, and said why); every file this pass leaves is added to it, for the passes that follow.
 */
export function restoreTurn(db: Db, sessionId: string, turnId: string, root: string, stateDir: string, leave = new Set<string>()): Restored {
  const files: string[] = [];
  const skipped: Skipped[] = [];
  const trash = new UndoTrash(stateDir, sessionId, root);
  const realRoot = realOr(root);
  for (const image of preImagesOf(db, sessionId, turnId)) {
    if (leave.has(image.path)) continue;
    const shown = relative(root, image.path) || image.path;
    let why: string | null;
    try {
      why = restoreFile(image, realRoot, trash);
    } catch (error) {
      why = `it could not be restored: ${errorMessage(error)}`;
    }
    if (why) {
      skipped.push({ path: shown, why });
      leave.add(image.path);
    } else files.push(shown);
  }
  skipped.push(...jobsNotRestored(db, sessionId, turnId));
  const mark = turnMarkOf(db, sessionId, turnId);
  if (mark) skipped.push({ path: WHOLE_TURN, why: mark });
  forgetPreImages(db, sessionId, turnId);
  const kept = trashSafely(trash, skipped);
  if (trash.notKept > 0) {
    const why = `${trash.notKept} file(s) past the trash's ${TRASH_MAX_BYTES / 1024 / 1024} MiB were not kept there: they were as the turn left them`;
    skipped.push({ path: "(undo trash)", why });
  }
  return { files, skipped, ...(kept ? { trash: kept } : {}) };
}

/** Restores one file; null when done, else why it was left as it is. */
function restoreFile(image: StoredImage, realRoot: string, trash: UndoTrash): string | null {
  if (image.refused) return image.refused;
  if (!image.stamp) return "what the turn left in it was not recorded (the turn did not end), so it is left as it is";
  if (!sameStamp(stampOf(image.path), image.stamp)) return "it changed after the turn (by you or another program), so it is left as it is";
  if (!insideReal(dirname(image.path), realRoot)) return "its directory now leads outside the project (a symlink), so it is left as it is";
  const now = lstatOrNull(image.path);
  if (now?.isDirectory()) return "it is a directory now, so it is left as it is";
  // A pipe or a device would block the copy into the trash, or be written through.
  if (now && !now.isFile() && !now.isSymbolicLink()) return "it is not a regular file now, so it is left as it is";
  if (!image.existed) {
    if (now) trash.take(image.path);
    return null;
  }
  if (image.content === null) return `its content from before the turn was not kept: ${image.missing ?? "unknown"}`;
  mkdirSync(dirname(image.path), { recursive: true });
  if (now) trash.keep(image.path);
  const temp = `${image.path}.lembas-undo-${process.pid}`;
  try {
    writeFileSync(temp, image.content);
    if (image.mode !== null) chmodSync(temp, image.mode);
    renameSync(temp, image.path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return null;
}

/** The trash is bounded after the restore; a failure there loses nothing undo did, and is said. */
function trashSafely(trash: UndoTrash, skipped: Skipped[]): string | null {
  try {
    return trash.finish();
  } catch (error) {
    skipped.push({ path: "(undo trash)", why: `older undos' trash could not be trimmed: ${errorMessage(error)}` });
    return null;
  }
}

/** Whether a directory, as the kernel would walk it (its nearest existing ancestor's real path), is inside the root. */
function insideReal(dir: string, realRoot: string): boolean {
  let at = dir;
  while (!lstatOrNull(at)) {
    const up = dirname(at);
    if (up === at) return false;
    at = up;
  }
  return isInside(realOr(at), realRoot);
}
