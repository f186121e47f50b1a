import { lstatSync } from "node:fs";
import type { IndexSnapshot } from "./git-index.ts";

/**
 * A file as last seen: enough to tell that it changed (git's own test: size, mtime, ctime, inode,
 * mode; ctime because a write that puts the mtime back, as cp -p and tar do, still moves it).
 * Plain numbers, not bigints: a project's every file is kept so.
 */
export type Seen = {
  size: number;
  mtimeSec: number;
  mtimeNsec: number;
  ctimeSec: number;
  ctimeNsec: number;
  ino: number;
  mode: number;
  regular: boolean;
};

/** A file's stat, or null when it is absent or a directory (or, with `dirs`, absent only). */
export function statOf(path: string, dirs = false): Seen | null {
  try {
    const s = lstatSync(path, { bigint: true });
    if (s.isDirectory() && !dirs) return null;
    const [mtimeSec, mtimeNsec] = secNsec(s.mtimeNs);
    const [ctimeSec, ctimeNsec] = secNsec(s.ctimeNs);
    return { size: Number(s.size), mtimeSec, mtimeNsec, ctimeSec, ctimeNsec, ino: Number(s.ino), mode: Number(s.mode), regular: s.isFile() };
  } catch {
    return null;
  }
}

export function sameSeen(a: Seen, b: Seen): boolean {
  return (
    a.size === b.size &&
    a.mtimeSec === b.mtimeSec &&
    a.mtimeNsec === b.mtimeNsec &&
    a.ctimeSec === b.ctimeSec &&
    a.ctimeNsec === b.ctimeNsec &&
    a.ino === b.ino &&
    a.mode === b.mode
  );
}

/**
 * Whether the file was, when `seen`, exactly its blob in the index: its stat is the one the index
 * recorded (mtime, ctime, size, inode), and it was not changed in the same instant the index was
 * written (git's racy case).
 */
export function isClean(rel: string, seen: Seen, index: IndexSnapshot | null): boolean {
  return cleanBlob(rel, seen, index) !== null;
}

export function cleanBlob(rel: string, seen: Seen, index: IndexSnapshot | null): string | null {
  if (!index || !seen.regular) return null;
  const entry = index.entries().get(rel);
  if (!entry) return null;
  if (entry.mtimeSec !== seen.mtimeSec % 2 ** 32 || entry.mtimeNsec !== seen.mtimeNsec) return null;
  // Stricter than git's default: a write that put the mtime back still moved the ctime.
  if (entry.ctimeSec !== seen.ctimeSec % 2 ** 32 || entry.ctimeNsec !== seen.ctimeNsec) return null;
  if (entry.size !== seen.size % 2 ** 32 || (entry.ino !== 0 && entry.ino !== seen.ino % 2 ** 32)) return null;
  const [indexSec, indexNsec] = secNsec(index.mtimeNs);
  if (seen.mtimeSec > indexSec || (seen.mtimeSec === indexSec && seen.mtimeNsec >= indexNsec)) return null;
  return entry.sha;
}

function secNsec(ns: bigint): [number, number] {
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
}

/** A directory's stat, or null when there is none at the path (a symlink to one is not one). */
export function dirStatOf(path: string): Seen | null {
  const seen = statOf(path, true);
  return seen && (seen.mode & 0o170000) === 0o040000 ? seen : null;
}

/** Whether a project-relative path names a directory: it ends with a slash, as `ls -p` shows one. */
export function isDirRel(rel: string): boolean {
  return rel.endsWith("/");
}
