import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { realOr } from "../real-path.ts";
import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { isDirRel } from "./file-stat.ts";
import { DirRestore, insideReal } from "./undo-dirs.ts";
import { jobsNotRestored } from "./undo-jobs.ts";
import { TRASH_MAX_BYTES, UndoTrash } from "./undo-trash.ts";
import { forgetPreImages, lstatOrNull, preImagesOf, type Stamp, type StoredImage, sameStamp, stampOf, turnMarkOf } from "../store/undo.ts";
import type { FileAccess } from "../tools/file-access.ts";

/** A file undo did not touch, and why. */
export type Skipped = { path: string; why: string };
/**
 * `trash`: where what undo replaced or deleted was put first, when it replaced or deleted anything.
 * `removedDirs`: the empty directories the turn had made, removed; `putBackDirs`: those it had removed, made again.
 */
export type Restored = { files: string[]; skipped: Skipped[]; trash?: string; removedDirs?: string[]; putBackDirs?: string[] };
/** What /undo answers: the undone turn's prompt, the files put back, and those left alone and why. */
export type Undone = Restored & { prompt: string };

/** What `skipped` names when what is said is of the turn, not of one file (its undo data was dropped). */
export const WHOLE_TURN = "(the whole turn)";

/**
 * Puts back every file the turn changed, byte for byte, and deletes the files it created (and the
 * directories it made or removed, as they were: DirRestore), but only
 * files still as the turn left them: one changed since (by the person, by another program) is left
 * alone and said, as is one whose earlier content was not kept. A file that cannot be restored is
 * said too, and the others are restored all the same: undo always answers. What the turn's
 * background jobs changed is not restored, and each job is named.
 * `leave`: files to leave as they are whatever they hold, unsaid (a rewind's pass over a later turn
 * left them, and said why); every file this pass leaves is added to it, for the passes that follow.
 */
export function restoreTurn(db: Db, sessionId: string, turnId: string, root: string, stateDir: string, leave = new Set<string>()): Restored {
  const restoring = new TurnRestore(db, sessionId, turnId, root, stateDir, leave);
  restoring.dirs.putBackFree();
  for (const image of restoring.images()) restoring.done(image, () => restoreFile(image, restoring.realRoot, restoring.trash));
  // Its place is free now, and what the turn left there was the directory undo just removed.
  return restoring.finish((image) => restoreFile({ ...image, stamp: ABSENT }, restoring.realRoot, restoring.trash));
}

/**
 * restoreTurn where the session's files are held by another (an editor that offers
 * fs/write_text_file): a file's content from before the turn is written back through `access`, as
 * the tools wrote it, and it is judged changed since the turn by the text the editor holds now
 * (its unsaved buffer), not the disk's. A file the turn made through the editor is left, as ACP
 * has no way to delete one and deleting it from the disk would leave the editor's open buffer
 * behind; one a command made on the disk is deleted there, unless the editor holds other text in it.
 */
export async function restoreTurnThrough(access: FileAccess, db: Db, sessionId: string, turnId: string, root: string, stateDir: string): Promise<Restored> {
  const restoring = new TurnRestore(db, sessionId, turnId, root, stateDir, new Set());
  restoring.dirs.putBackFree();
  const signal = new AbortController().signal;
  const heldNow = async (path: string): Promise<Stamp> => {
    const held = await access.readText(path, signal);
    return held && "text" in held ? textStamp(held.text) : stampOf(path);
  };
  for (const image of restoring.images()) {
    if (!image.existed) {
      if (madeThroughEditor(image)) {
        // Its text in the editor judges whether it changed since; where the editor cannot give it, nothing says it did.
        const held = await access.readText(image.path, signal);
        const why = held && "text" in held ? unrestorable(image, textStamp(held.text), restoring.realRoot) : null;
        restoring.done(image, () => why ?? `lembas cannot delete a file through the editor: delete ${restoring.shown(image)} there`);
        continue;
      }
      const held = await access.readText(image.path, signal);
      const unsaved = held && "text" in held && lstatOrNull(image.path)?.isFile() && !sameStamp(textStamp(held.text), stampOf(image.path));
      const why = unsaved ? "the editor holds other text in it than the disk (unsaved), so it is left as it is" : null;
      restoring.done(image, () => why ?? restoreFile(image, restoring.realRoot, restoring.trash));
      continue;
    }
    const text = image.content !== null ? utf8(image.content) : null;
    if (text === null) {
      restoring.done(image, () => restoreFile(image, restoring.realRoot, restoring.trash));
      continue;
    }
    const why = unrestorable(image, await heldNow(image.path), restoring.realRoot);
    if (why !== null) {
      restoring.done(image, () => why);
      continue;
    }
    try {
      await access.writeText(image.path, text, signal);
      restoring.done(image, () => null);
    } catch (error) {
      restoring.done(image, () => `it could not be put back through your editor: ${errorMessage(error)}`);
    }
  }
  return restoring.finish();
}

/** Whether the turn's last write of a file went to the editor (a stamp of the text written, which has no mtime), not the disk. */
function madeThroughEditor(image: StoredImage): boolean {
  return image.stamp !== null && image.stamp.existed && image.stamp.mtime === null;
}

const CHANGED = "it changed after the turn (by you or another program), so it is left as it is";
const IS_DIR = "it is a directory now, so it is left as it is";
const ABSENT: Stamp = { existed: false, size: null, mtime: null, hash: null };

/** One turn's restore: its pre-images, what was put back and what was left and why, then its trash. */
class TurnRestore {
  readonly files: string[] = [];
  readonly skipped: Skipped[] = [];
  readonly trash: UndoTrash;
  readonly realRoot: string;
  readonly dirs: DirRestore;
  private readonly all: StoredImage[];

  constructor(
    private readonly db: Db,
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly root: string,
    stateDir: string,
    private readonly leave: Set<string>,
  ) {
    this.trash = new UndoTrash(stateDir, sessionId, root);
    this.realRoot = realOr(root);
    this.all = preImagesOf(db, sessionId, turnId);
    this.dirs = new DirRestore(this.all, root, this.realRoot, this.skipped);
  }

  /** The turn's files (its directories are the DirRestore's). */
  images(): StoredImage[] {
    return this.all.filter((image) => !isDirRel(image.path) && !this.leave.has(image.path));
  }

  /** The path as undo's answer names it: relative to the root. */
  shown(image: StoredImage): string {
    return relative(this.root, image.path) || image.path;
  }

  /** A file left as the turn had put a directory it made in its place: once that directory is removed (empty), the file goes back there. */
  private retryWhereDirsWent(retry: (image: StoredImage) => string | null): void {
    const gone = new Set(this.dirs.removed);
    for (const image of this.all) {
      const shown = this.shown(image);
      const at = this.skipped.findIndex((s) => s.path === shown && s.why === IS_DIR);
      if (isDirRel(image.path) || !gone.has(shown) || at < 0) continue;
      this.skipped.splice(at, 1);
      this.leave.delete(image.path);
      this.done(image, () => retry(image));
    }
  }

  /** Restores one file with `restore` (null: done, else why it was left); a throw is said as why. */
  done(image: StoredImage, restore: () => string | null): void {
    const shown = this.shown(image);
    let why: string | null;
    try {
      why = restore();
    } catch (error) {
      why = `it could not be restored: ${errorMessage(error)}`;
    }
    if (why) {
      this.skipped.push({ path: shown, why });
      this.leave.add(image.path);
    } else this.files.push(shown);
  }

  /** `retry`: how a file is restored, tried again where the turn had put a directory in its place, now removed. */
  finish(retry?: (image: StoredImage) => string | null): Restored {
    const { db, sessionId, turnId, skipped, trash, dirs } = this;
    dirs.finish();
    if (retry) this.retryWhereDirsWent(retry);
    skipped.push(...jobsNotRestored(db, sessionId, turnId));
    const mark = turnMarkOf(db, sessionId, turnId);
    if (mark) skipped.push({ path: WHOLE_TURN, why: mark });
    forgetPreImages(db, sessionId, turnId);
    const kept = trashSafely(trash, skipped);
    if (trash.notKept > 0) {
      const why = `${trash.notKept} file(s) past the trash's ${TRASH_MAX_BYTES / 1024 / 1024} MiB were not kept there: they were as the turn left them`;
      skipped.push({ path: "(undo trash)", why });
    }
    return {
      files: this.files,
      skipped,
      ...(kept ? { trash: kept } : {}),
      ...(dirs.removed.length > 0 ? { removedDirs: dirs.removed } : {}),
      ...(dirs.putBack.length > 0 ? { putBackDirs: dirs.putBack } : {}),
    };
  }
}

/** Restores one file; null when done, else why it was left as it is. */
function restoreFile(image: StoredImage, realRoot: string, trash: UndoTrash): string | null {
  const why = unrestorable(image, stampOf(image.path), realRoot);
  if (why !== null) return why;
  const now = lstatOrNull(image.path);
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

/** Why a file may not be put back, with `now` its state now (the disk's, or its text where an editor holds it); null: it may. */
function unrestorable(image: StoredImage, now: Stamp, realRoot: string): string | null {
  if (image.refused) return image.refused;
  if (!image.stamp) return "what the turn left in it was not recorded (the turn did not end), so it is left as it is";
  if (!sameStamp(now, image.stamp)) return CHANGED;
  if (!insideReal(dirname(image.path), realRoot)) return "its directory now leads outside the project (a symlink), so it is left as it is";
  const disk = lstatOrNull(image.path);
  if (disk?.isDirectory()) return IS_DIR;
  // A pipe or a device would block the copy into the trash, or be written through.
  if (disk && !disk.isFile() && !disk.isSymbolicLink()) return "it is not a regular file now, so it is left as it is";
  return null;
}

/** The stamp of a text as a file would hold it (an editor's buffer): what the turn's stamp of a write through it was. */
function textStamp(text: string): Stamp {
  const bytes = Buffer.from(text);
  return { existed: true, size: bytes.length, mtime: null, hash: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
}

/** Bytes as text, or null when they are not UTF-8 (such a file is put back on the disk, byte for byte). */
function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
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

