import { resolve } from "node:path";
import type { Db } from "./db.ts";
import { isInside } from "../paths.ts";
import { realOr } from "../real-path.ts";

/**
 * Trusted directories: trusting one covers everything below it. Stored and judged with symlinks
 * resolved, so a directory trusted through a link is the one a session over the real path opens.
 */
export function trustDir(db: Db, path: string): void {
  db.query("INSERT INTO trusted (path, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING").run(realOrResolved(path), Date.now());
}

/** Forgets a trusted directory named by either spelling: as stored, or through a link to it. */
export function untrustDir(db: Db, path: string): boolean {
  const spellings = [...new Set([resolve(path), realOrResolved(path)])];
  const stored = trustedDirs(db).filter((dir) => spellings.includes(dir) || spellings.includes(realOrResolved(dir)));
  let removed = 0;
  for (const dir of stored) removed += db.query("DELETE FROM trusted WHERE path = ?").run(dir).changes;
  return removed > 0;
}

export function trustedDirs(db: Db): string[] {
  return db.query<{ path: string }, []>("SELECT path FROM trusted ORDER BY path").all().map((r) => r.path);
}

/**
 * The trusted directory that covers PATH (itself or an ancestor), or null. Both sides are taken
 * with symlinks resolved: rows stored before trust resolved them may still name a link.
 */
export function trustedRootOf(db: Db, path: string): string | null {
  const dirs = trustedDirs(db);
  if (dirs.length === 0) return null;
  const target = realOrResolved(path);
  // Asked at every step: a row as trust stores it (absolute, links resolved) is matched as written,
  // and only the others are resolved. A directory a real path lies in is itself real: no match is missed.
  return dirs.find((dir) => dir === resolve(dir) && isInside(target, dir)) ?? dirs.find((dir) => isInside(target, realOrResolved(dir))) ?? null;
}

/** PATH absolute, with symlinks resolved where it exists. */
export function realOrResolved(path: string): string {
  return realOr(resolve(path));
}

/**
 * Whether one of DIRS (absolute, symlinks resolved: a directory and its ancestors) is trusted as
 * trust stores it: one lookup of the table's key, for a check asked at every request.
 */
export function anyTrusted(db: Db, dirs: readonly string[]): boolean {
  if (dirs.length === 0) return false;
  return db.query<{ found: number }, string[]>(`SELECT 1 AS found FROM trusted WHERE path IN (${dirs.map(() => "?").join(", ")}) LIMIT 1`).get(...dirs) !== null;
}
