import { isAbsolute, join, posix, relative, sep } from "node:path";
import type { Db } from "../store/db.ts";
import { loadFrecency, pruneFrecency, updateFrecency } from "../store/files.ts";

/** How long it takes a use to count half as much. */
export const HALF_LIFE_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * The most frecency adds to a match's score: less than a contiguous run earns over a scattered
 * match, so it orders close matches and never lifts a poor one over a good one (nor ever across
 * kinds of match, which are further apart still).
 */
export const MAX_BOOST = 10;

/** Uses older than this many half-lives are forgotten: they count for less than a thousandth. */
const FORGET_AFTER = 10;

/** A use's count at `now`, `score` having been its count at `lastUsed`. */
export function decayed(score: number, lastUsed: number, now: number, halfLife = HALF_LIFE_MS): number {
  return score * 2 ** (-Math.max(0, now - lastUsed) / halfLife);
}

/** What a decayed use count adds to a match's score. */
export function boostOf(score: number): number {
  return Math.min(MAX_BOOST, 4 * Math.log2(1 + score));
}

/**
 * Counts one use (attached, read, edited) of `path` below `root`: absolute, or relative to the
 * root. A path outside the root is not counted.
 */
export function recordUse(db: Db, root: string, path: string, now = Date.now(), halfLife = HALF_LIFE_MS): void {
  const rel = relativeTo(root, path);
  if (rel === null) return;
  updateFrecency(db, root, rel, (row) => ({ path: rel, score: (row ? decayed(row.score, row.lastUsed, now, halfLife) : 0) + 1, lastUsed: now }));
  pruneFrecency(db, root, now - FORGET_AFTER * halfLife);
}

/**
 * The paths below `root` used lately, most used (after decay) first, with their decayed counts:
 * uses recorded for `root` itself, for a directory above it or for one below it, all alike.
 */
export function recentUses(db: Db, root: string, now: number, halfLife = HALF_LIFE_MS): { path: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const row of loadFrecency(db, root)) {
    const path = row.root === root ? row.path : relativeTo(root, join(row.root, row.path));
    if (path === null) continue;
    scores.set(path, (scores.get(path) ?? 0) + decayed(row.score, row.lastUsed, now, halfLife));
  }
  return [...scores]
    .map(([path, score]) => ({ path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/** `path` relative to `root`, `/`-separated, or null when it is the root itself or outside it. */
export function relativeTo(root: string, path: string): string | null {
  const rel = isAbsolute(path) ? relative(root, path) : path;
  const posixRel = posix.normalize(sep === "/" ? rel : rel.split(sep).join("/"));
  if (posixRel === "." || posixRel === ".." || posixRel.startsWith("../") || posix.isAbsolute(posixRel)) return null;
  return posixRel.endsWith("/") ? posixRel.slice(0, -1) : posixRel;
}
