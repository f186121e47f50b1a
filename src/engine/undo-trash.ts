import { copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { errorCode } from "../errors.ts";

/** The most bytes a session's undo trash keeps: the oldest undos' copies go first (the last one never). */
export const TRASH_MAX_BYTES = 256 * 1024 * 1024;

/** Where a session's undo trash is, in the state dir. */
export function trashDirOf(stateDir: string, sessionId: string): string {
  return join(stateDir, "undo-trash", sessionId);
}

/**
 * What one /undo replaced or deleted, kept before it did: nothing undo touches is lost for good,
 * not even what it could not tell from the turn's work (the person's edit during a command).
 * The directory is made on first use, one per undo.
 */
export class UndoTrash {
  private dir: string | null = null;
  /** Bytes this undo put in the trash, and how many files did not fit. */
  private used = 0;
  private overflow = 0;

  constructor(
    private readonly stateDir: string,
    private readonly sessionId: string,
    private readonly root: string,
    /** The most one undo puts in the trash (the session's bound is finish's). */
    private readonly maxBytes = TRASH_MAX_BYTES,
  ) {}

  /** Files that did not fit in this undo's trash (they were as the turn left them, and went). */
  get notKept(): number {
    return this.overflow;
  }

  /**
   * Moves a file (undo deletes it) into the trash; throws, leaving it where it is, when it cannot.
   * Past the bound (a turn that made gigabytes) the file, still as the turn left it, is deleted.
   */
  take(path: string): void {
    if (!this.fits(path)) {
      rmSync(path, { force: true });
      return;
    }
    const to = this.place(path);
    try {
      renameSync(path, to);
    } catch (error) {
      if (errorCode(error) !== "EXDEV") throw error;
      copyInto(path, to);
      rmSync(path);
    }
  }

  /** Copies a file (undo overwrites it) into the trash, within the bound. */
  keep(path: string): void {
    if (this.fits(path)) copyInto(path, this.place(path));
  }

  private fits(path: string): boolean {
    const size = lstatSync(path).size;
    if (this.used + size > this.maxBytes) {
      this.overflow++;
      return false;
    }
    this.used += size;
    return true;
  }

  /** The trash of this undo when anything went in, after the session's trash is brought within its bound. */
  finish(sessionMaxBytes = TRASH_MAX_BYTES): string | null {
    if (!this.dir) return null;
    boundTrash(trashDirOf(this.stateDir, this.sessionId), this.dir, sessionMaxBytes);
    return this.dir;
  }

  private place(path: string): string {
    this.dir ??= freshDir(trashDirOf(this.stateDir, this.sessionId));
    const rel = relative(this.root, path);
    const inside = rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : join("outside-the-project", path);
    const to = join(this.dir, inside);
    mkdirSync(dirname(to), { recursive: true });
    return to;
  }
}

/** Undos are numbered in the order they were made (clocks can go back), their time beside for people. */
function freshDir(base: string): string {
  mkdirSync(base, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  for (let next = lastNumber(base) + 1; ; next++) {
    const dir = join(base, `${String(next).padStart(6, "0")}-${stamp}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }
}

function numberOf(name: string): number {
  return Number.parseInt(name, 10) || 0;
}

function lastNumber(base: string): number {
  return readdirSync(base).reduce((max, name) => Math.max(max, numberOf(name)), 0);
}

/** A symlink is kept as a symlink: its target is not followed out of the project. */
function copyInto(path: string, to: string): void {
  if (lstatSync(path).isSymbolicLink()) symlinkSync(readlinkSync(path), to);
  else copyFileSync(path, to);
}

/** Drops the oldest undos' trash past `maxBytes` in all; `newest` always stays. */
function boundTrash(base: string, newest: string, maxBytes: number): void {
  const entries = readdirSync(base).sort((a, b) => numberOf(b) - numberOf(a));
  let total = 0;
  for (const name of entries) {
    const dir = join(base, name);
    total += bytesUnder(dir);
    if (dir === newest || total <= maxBytes) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

function bytesUnder(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let sum = 0;
  for (const name of readdirSync(path)) sum += bytesUnder(join(path, name));
  return sum;
}
