import type { Db } from "./db.ts";

/** A file or directory of a project's file index, `path` relative to its root and `/`-separated. */
export type FileKind = "file" | "dir";
/** One stored entry of a file index. */
export type FileRow = { path: string; kind: FileKind };

/** How often a file was used, decayed to `lastUsed` (see project/frecency.ts). */
export type FrecencyRow = { path: string; score: number; lastUsed: number };

/** The stored index of `root` (absolute), in path order; empty when it was never listed. */
export function loadFiles(db: Db, root: string): FileRow[] {
  return db.query<FileRow, [string]>("SELECT path, kind FROM files WHERE root = ? ORDER BY path").all(root);
}

/** Applies a refresh's difference to the stored index of `root` in one transaction. */
export function saveFileChanges(db: Db, root: string, added: readonly FileRow[], removed: readonly string[]): void {
  if (added.length === 0 && removed.length === 0) return;
  const insert = db.query("INSERT INTO files (root, path, kind) VALUES (?, ?, ?) ON CONFLICT (root, path) DO UPDATE SET kind = excluded.kind");
  const remove = db.query("DELETE FROM files WHERE root = ? AND path = ?");
  const apply = db.transaction(() => {
    for (const path of removed) remove.run(root, path);
    for (const row of added) insert.run(root, row.path, row.kind);
  });
  apply.immediate();
}

/**
 * The frecency rows recorded under `root`, and under the directories above and below it (a use
 * recorded for a project counts in a search rooted in its subdirectory, and the other way round);
 * each with the root it was recorded under.
 */
export function loadFrecency(db: Db, root: string): (FrecencyRow & { root: string })[] {
  const around = [...ancestors(root), root];
  // Below: every root that starts with "<root>/", i.e. from "<root>/" up to "<root>0" ('0' follows '/').
  const below = root === "/" ? "/" : `${root}/`;
  const end = `${below.slice(0, -1)}0`;
  return db
    .query<FrecencyRow & { root: string }, string[]>(
      `SELECT root, path, score, last_used AS lastUsed FROM frecency
       WHERE root IN (${around.map(() => "?").join(", ")}) OR (root >= ? AND root < ?)`,
    )
    .all(...around, below, end);
}

/** The directories above an absolute path: "/a/b" → "/", "/a". */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("/", 1); i !== -1; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return path === "/" ? [] : ["/", ...out];
}

/**
 * Reads the row of one path and writes back what `next` makes of it, in one transaction, so two
 * processes recording a use at once both count.
 */
export function updateFrecency(db: Db, root: string, path: string, next: (row: FrecencyRow | null) => FrecencyRow): FrecencyRow {
  const read = db.query<FrecencyRow, [string, string]>(
    "SELECT path, score, last_used AS lastUsed FROM frecency WHERE root = ? AND path = ?",
  );
  const write = db.query(
    "INSERT INTO frecency (root, path, score, last_used) VALUES (?, ?, ?, ?) ON CONFLICT (root, path) DO UPDATE SET score = excluded.score, last_used = excluded.last_used",
  );
  const apply = db.transaction(() => {
    const row = next(read.get(root, path));
    write.run(root, row.path, row.score, row.lastUsed);
    return row;
  });
  return apply.immediate();
}

/** Forgets the frecency rows of `root` last used before `before` (their score has decayed to nothing). */
export function pruneFrecency(db: Db, root: string, before: number): number {
  return db.query("DELETE FROM frecency WHERE root = ? AND last_used < ?").run(root, before).changes;
}
