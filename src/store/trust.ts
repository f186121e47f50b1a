import { resolve } from "node:path";
import type { Db } from "./db.ts";
import { isInside } from "../paths.ts";

/** Trusted directories: trusting one covers everything below it. */
export function trustDir(db: Db, path: string): void {
  db.query("INSERT INTO trusted (path, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING").run(resolve(path), Date.now());
}

export function untrustDir(db: Db, path: string): boolean {
  return db.query("DELETE FROM trusted WHERE path = ?").run(resolve(path)).changes > 0;
}

export function trustedDirs(db: Db): string[] {
  return db.query<{ path: string }, []>("SELECT path FROM trusted ORDER BY path").all().map((r) => r.path);
}

/** The trusted directory that covers PATH (itself or an ancestor), or null. */
export function trustedRootOf(db: Db, path: string): string | null {
  const target = resolve(path);
  for (const dir of trustedDirs(db)) {
    if (isInside(target, dir)) return dir;
  }
  return null;
}

