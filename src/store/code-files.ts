import type { Db } from "./db.ts";

/** A project file as the code index keeps it: `path` relative to its root, `/`-separated. */
export type CodeFile = {
  id: number;
  path: string;
  hash: string;
  mtime: number;
  size: number;
  model: string;
  dimension: number;
  chunks: number;
  /** Why the file is left out (binary, minified, generated, too large); null for one indexed. */
  skipped: string | null;
};

export type NewCodeFile = Omit<CodeFile, "id" | "chunks">;
export type NewCodeChunk = { startLine: number; endLine: number; text: string; vector: Float32Array };
export type CodePassage = { id: number; path: string; startLine: number; endLine: number; text: string };

const FILE_COLUMNS = "id, path, hash, mtime, size, model, dimension, chunks, skipped";

/** Every file the index holds for `root`, by path. */
export function codeFiles(db: Db, root: string): Map<string, CodeFile> {
  const rows = db.query<CodeFile, [string]>(`SELECT ${FILE_COLUMNS} FROM code_files WHERE root = ?`).all(root);
  return new Map(rows.map((r) => [r.path, r]));
}

/** What a refresh compares each listed file with: its size, time, model and whether it was left out (rows as arrays: cheap for 200,000). */
export type Stamp = [mtime: number, size: number, model: string, skipped: string | null];

export function codeStamps(db: Db, root: string): Map<string, Stamp> {
  const out = new Map<string, Stamp>();
  for (const row of db.query<{ path: string; mtime: number; size: number; model: string; skipped: string | null }, [string]>("SELECT path, mtime, size, model, skipped FROM code_files WHERE root = ?").iterate(root)) {
    out.set(row.path, [row.mtime, row.size, row.model, row.skipped]);
  }
  return out;
}

export function codeFile(db: Db, root: string, path: string): CodeFile | null {
  return db.query<CodeFile, [string, string]>(`SELECT ${FILE_COLUMNS} FROM code_files WHERE root = ? AND path = ?`).get(root, path) ?? null;
}

/** Changes with every write to the root's index (in any process). */
export function codeGeneration(db: Db, root: string): number {
  return db.query<{ g: number }, [string]>("SELECT generation AS g FROM code_roots WHERE root = ?").get(root)?.g ?? 0;
}

/**
 * Puts a file in the index with its chunks, replacing what the path had, in one transaction; only
 * if the row still has the hash the writer read before embedding (`expect`, null: none), so that a
 * slower writer never puts older chunks over newer ones. False when it did not write.
 */
export function writeCodeFile(db: Db, root: string, file: NewCodeFile, chunks: readonly NewCodeChunk[], expect: string | null): boolean {
  const insert = db.query("INSERT INTO code_chunks (file_id, root, start_line, end_line, text, vector) VALUES (?, ?, ?, ?, ?, ?)");
  return db.transaction(() => {
    const now = db.query<{ hash: string }, [string, string]>("SELECT hash FROM code_files WHERE root = ? AND path = ?").get(root, file.path);
    if ((now?.hash ?? null) !== expect) return false;
    deleteFile(db, root, file.path);
    const row = db
      .query<{ id: number }, [string, string, string, number, number, string, number, number, string | null]>(
        "INSERT INTO code_files (root, path, hash, mtime, size, model, dimension, chunks, skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      )
      .get(root, file.path, file.hash, file.mtime, file.size, file.model, file.dimension, chunks.length, file.skipped);
    if (!row) throw new Error("the code file row was not written");
    for (const c of chunks) insert.run(row.id, root, c.startLine, c.endLine, c.text, new Uint8Array(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength));
    if (chunks.length > 0 || now?.hash !== undefined) bump(db, root);
    return true;
  }).immediate();
}

/** Records a file's size and time as they are now (its content, by hash, is what was indexed). */
export function touchCodeFile(db: Db, root: string, path: string, size: number, mtime: number): void {
  db.query("UPDATE code_files SET size = ?, mtime = ? WHERE root = ? AND path = ?").run(size, mtime, root, path);
}

/** Takes these files (gone from the project) and their chunks out, in one transaction. */
export function removeCodeFiles(db: Db, root: string, paths: readonly string[]): void {
  if (paths.length === 0) return;
  db.transaction(() => {
    for (const path of paths) deleteFile(db, root, path);
    bump(db, root);
  }).immediate();
}

/** Drops the root's whole index (rebuild, off). */
export function dropCodeIndex(db: Db, root: string): void {
  db.transaction(() => {
    db.query("DELETE FROM code_chunks WHERE root = ?").run(root);
    db.query("DELETE FROM code_files WHERE root = ?").run(root);
    bump(db, root);
  }).immediate();
}

function deleteFile(db: Db, root: string, path: string): void {
  const old = db.query<{ id: number }, [string, string]>("SELECT id FROM code_files WHERE root = ? AND path = ?").get(root, path);
  if (!old) return;
  db.query("DELETE FROM code_chunks WHERE file_id = ?").run(old.id);
  db.query("DELETE FROM code_files WHERE id = ?").run(old.id);
}

function bump(db: Db, root: string): void {
  db.query("INSERT INTO code_roots (root, generation) VALUES (?, 1) ON CONFLICT (root) DO UPDATE SET generation = generation + 1").run(root);
}

/** The root's chunk count, file counts (indexed, left out) and models, for status lines. */
export function codeIndexCounts(db: Db, root: string): { files: number; skipped: number; chunks: number; models: string[] } {
  const files = db
    .query<{ indexed: number; skipped: number; chunks: number }, [string]>(
      "SELECT coalesce(sum(skipped IS NULL), 0) AS indexed, coalesce(sum(skipped IS NOT NULL), 0) AS skipped, coalesce(sum(chunks), 0) AS chunks FROM code_files WHERE root = ?",
    )
    .get(root);
  const models = db.query<{ model: string }, [string]>("SELECT DISTINCT model FROM code_files WHERE root = ? AND chunks > 0").all(root).map((r) => r.model);
  return { files: files?.indexed ?? 0, skipped: files?.skipped ?? 0, chunks: files?.chunks ?? 0, models };
}

/** Every root that has an index, with its file and chunk counts (doctor). */
export function codeIndexRoots(db: Db): { root: string; files: number; chunks: number }[] {
  return db
    .query<{ root: string; files: number; chunks: number }, []>("SELECT root, count(*) AS files, coalesce(sum(chunks), 0) AS chunks FROM code_files GROUP BY root ORDER BY root")
    .all();
}

/**
 * The root's chunks a model embedded: id, file id and vector, in id order, with the generation
 * they were read at (one read transaction).
 */
export function readCodeVectors(db: Db, root: string, model: string, each: (id: number, fileId: number, vector: Uint8Array) => void): { generation: number; count: number } {
  return db.transaction(() => {
    const generation = codeGeneration(db, root);
    let count = 0;
    const rows = db
      .query<{ id: number; fileId: number; vector: Uint8Array }, [string, string]>(
        "SELECT c.id, c.file_id AS fileId, c.vector FROM code_chunks c JOIN code_files f ON f.id = c.file_id WHERE c.root = ? AND f.model = ? ORDER BY c.id",
      )
      .iterate(root, model);
    for (const row of rows) {
      each(row.id, row.fileId, row.vector);
      count += 1;
    }
    return { generation, count };
  })();
}

export function codeChunkCount(db: Db, root: string): number {
  return db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM code_chunks WHERE root = ?").get(root)?.n ?? 0;
}

/** The root's chunks FTS5 ranks best for a MATCH expression, best first; with `fileIds`, only theirs. */
export function codeTextMatches(db: Db, root: string, match: string, limit: number, fileIds?: ReadonlySet<number>): { id: number; rank: number }[] {
  const rows = db
    .query<{ id: number; rank: number; fileId: number }, [string, string, number]>(
      "SELECT t.rowid AS id, t.rank AS rank, c.file_id AS fileId FROM code_fts t JOIN code_chunks c ON c.id = t.rowid WHERE code_fts MATCH ? AND c.root = ? ORDER BY t.rank LIMIT ?",
    )
    .all(match, root, fileIds ? limit * 20 : limit);
  return (fileIds ? rows.filter((r) => fileIds.has(r.fileId)) : rows).slice(0, limit).map(({ id, rank }) => ({ id, rank }));
}

/** The passages of these chunk ids, with their files' paths (in no particular order). */
export function codePassages(db: Db, ids: readonly number[]): CodePassage[] {
  if (ids.length === 0) return [];
  const marks = ids.map(() => "?").join(", ");
  return db
    .query<CodePassage, number[]>(
      `SELECT c.id, f.path, c.start_line AS startLine, c.end_line AS endLine, c.text FROM code_chunks c JOIN code_files f ON f.id = c.file_id WHERE c.id IN (${marks})`,
    )
    .all(...ids);
}

/** The dimension of the vectors a model made in the root's index, or undefined when it made none. */
export function codeDimension(db: Db, root: string, model: string): number | undefined {
  return db.query<{ d: number }, [string, string]>("SELECT dimension AS d FROM code_files WHERE root = ? AND model = ? AND chunks > 0 LIMIT 1").get(root, model)?.d;
}
