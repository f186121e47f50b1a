import type { Db } from "./db.ts";

/** A document of the library as the store keeps it. */
export type LibraryDocument = {
  id: number;
  path: string;
  hash: string;
  mtime: number;
  size: number;
  model: string;
  dimension: number;
  chunks: number;
  addedAt: number;
};

export type NewDocument = Omit<LibraryDocument, "id" | "chunks" | "addedAt">;
export type NewChunk = { startLine: number; endLine: number; text: string; vector: Float32Array };
/** A chunk with its document's path, as search returns it. */
export type StoredPassage = { id: number; path: string; startLine: number; endLine: number; text: string };

const DOCUMENT_COLUMNS = "id, path, hash, mtime, size, model, dimension, chunks, added_at AS addedAt";

export function getDocument(db: Db, path: string): LibraryDocument | null {
  return db.query<LibraryDocument, [string]>(`SELECT ${DOCUMENT_COLUMNS} FROM library_documents WHERE path = ?`).get(path) ?? null;
}

export function listDocuments(db: Db): LibraryDocument[] {
  return db.query<LibraryDocument, []>(`SELECT ${DOCUMENT_COLUMNS} FROM library_documents ORDER BY path`).all();
}

export function documentCount(db: Db): number {
  return db.query<{ n: number }, []>("SELECT count(*) AS n FROM library_documents").get()?.n ?? 0;
}

/** Changes with every write to the library (in any process). */
export function libraryGeneration(db: Db): number {
  return db.query<{ g: number }, []>("SELECT generation AS g FROM library_state WHERE id = 1").get()?.g ?? 0;
}

/**
 * Puts a document in the library with all its chunks, replacing what the same path had, in one
 * transaction: a reader sees the old document or the new one whole, never a part.
 */
export function replaceDocument(db: Db, doc: NewDocument, chunks: readonly NewChunk[], expect?: Expected): boolean {
  const insertChunk = db.query("INSERT INTO library_chunks (document_id, start_line, end_line, text, vector) VALUES (?, ?, ?, ?, ?)");
  return db.transaction(() => {
    if (expect && !stillAsRead(db, doc.path, expect)) return false;
    deleteByPath(db, doc.path);
    const row = db
      .query<{ id: number }, [string, string, number, number, string, number, number, number]>(
        "INSERT INTO library_documents (path, hash, mtime, size, model, dimension, chunks, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      )
      .get(doc.path, doc.hash, doc.mtime, doc.size, doc.model, doc.dimension, chunks.length, Date.now());
    if (!row) throw new Error("the document row was not written");
    for (const c of chunks) insertChunk.run(row.id, c.startLine, c.endLine, c.text, new Uint8Array(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength));
    bump(db);
    return true;
  }).immediate();
}

/**
 * What a writer read of a document before its slow part (embedding): the hash it had, or null for
 * none there. The write is made only if the document is still so, so that a slower process never
 * puts back older chunks over what another wrote meanwhile.
 */
export type Expected = { hash: string | null };

function stillAsRead(db: Db, path: string, expect: Expected): boolean {
  const now = db.query<{ hash: string }, [string]>("SELECT hash FROM library_documents WHERE path = ?").get(path);
  return (now?.hash ?? null) === expect.hash;
}

/** Records a document's file size and time as they are now (its content, by hash, is what was indexed). */
export function touchDocument(db: Db, path: string, size: number, mtime: number): void {
  db.query("UPDATE library_documents SET size = ?, mtime = ? WHERE path = ?").run(size, mtime, path);
}

/** Takes a document and its chunks out; false when the library did not have it. */
export function removeDocument(db: Db, path: string, expect?: Expected): boolean {
  return db.transaction(() => {
    if (expect && !stillAsRead(db, path, expect)) return false;
    const removed = deleteByPath(db, path);
    if (removed) bump(db);
    return removed;
  }).immediate();
}

function deleteByPath(db: Db, path: string): boolean {
  const old = db.query<{ id: number }, [string]>("SELECT id FROM library_documents WHERE path = ?").get(path);
  if (!old) return false;
  // The chunks first, one by one through the FTS trigger, then the document.
  db.query("DELETE FROM library_chunks WHERE document_id = ?").run(old.id);
  db.query("DELETE FROM library_documents WHERE id = ?").run(old.id);
  return true;
}

function bump(db: Db): void {
  db.query("UPDATE library_state SET generation = generation + 1 WHERE id = 1").run();
}

/** A document's chunks (for re-embedding with another model). */
export function documentChunks(db: Db, documentId: number): { startLine: number; endLine: number; text: string }[] {
  return db
    .query<{ startLine: number; endLine: number; text: string }, [number]>(
      "SELECT start_line AS startLine, end_line AS endLine, text FROM library_chunks WHERE document_id = ? ORDER BY id",
    )
    .all(documentId);
}

/**
 * Every chunk's id and vector, in id order, as the generation it was read at (one read
 * transaction); with `model`, only the chunks that model embedded (a library part way through
 * being re-embedded holds vectors of two models, which no query vector is comparable with).
 */
export function readVectors(db: Db, each: (id: number, vector: Uint8Array) => void, model?: string): { generation: number; count: number } {
  return db.transaction(() => {
    const generation = libraryGeneration(db);
    let count = 0;
    const rows =
      model === undefined
        ? db.query<{ id: number; vector: Uint8Array }, []>("SELECT id, vector FROM library_chunks ORDER BY id").iterate()
        : db
            .query<{ id: number; vector: Uint8Array }, [string]>(
              "SELECT c.id, c.vector FROM library_chunks c JOIN library_documents d ON d.id = c.document_id WHERE d.model = ? ORDER BY c.id",
            )
            .iterate(model);
    for (const row of rows) {
      each(row.id, row.vector);
      count += 1;
    }
    return { generation, count };
  })();
}

export function chunkCount(db: Db): number {
  return db.query<{ n: number }, []>("SELECT count(*) AS n FROM library_chunks").get()?.n ?? 0;
}

/** The chunks FTS5 ranks best for a MATCH expression (bm25: lower is better), best first. */
export function textMatches(db: Db, match: string, limit: number): { id: number; rank: number }[] {
  return db.query<{ id: number; rank: number }, [string, number]>("SELECT rowid AS id, rank FROM library_fts WHERE library_fts MATCH ? ORDER BY rank LIMIT ?").all(match, limit);
}

/** The passages of these chunk ids, with their documents' paths (in no particular order). */
export function passagesByIds(db: Db, ids: readonly number[]): StoredPassage[] {
  if (ids.length === 0) return [];
  const marks = ids.map(() => "?").join(", ");
  return db
    .query<StoredPassage, number[]>(
      `SELECT c.id, d.path, c.start_line AS startLine, c.end_line AS endLine, c.text FROM library_chunks c JOIN library_documents d ON d.id = c.document_id WHERE c.id IN (${marks})`,
    )
    .all(...ids);
}

/** The dimension of the vectors a model made in the library, or undefined when it made none. */
export function modelDimension(db: Db, model: string): number | undefined {
  return db.query<{ d: number }, [string]>("SELECT dimension AS d FROM library_documents WHERE model = ? LIMIT 1").get(model)?.d;
}

/** Whether any document was embedded by another model than this one. */
export function hasOtherModel(db: Db, model: string): boolean {
  return db.query<{ one: number }, [string]>("SELECT 1 AS one FROM library_documents WHERE model <> ? LIMIT 1").get(model) !== null;
}
