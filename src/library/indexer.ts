import type { Db } from "../store/db.ts";
import { documentChunks, getDocument, hasOtherModel, type LibraryDocument, listDocuments, modelDimension, replaceDocument, touchDocument } from "../store/library.ts";
import { chunkText, isMarkdown } from "./chunker.ts";
import { readDocument } from "./document-file.ts";
import type { EmbeddingTarget } from "./embedding-target.ts";
import { embedTexts, EmbeddingError, type EmbedOptions } from "./embeddings.ts";

/** Where the indexer tells what it does: sentences, and progress while a file's chunks are embedded. */
export type Reporter = { say(line: string): void; progress(line: string): void };
export const QUIET: Reporter = { say: () => {}, progress: () => {} };

export type AddSummary = {
  added: number;
  updated: number;
  unchanged: number;
  chunks: number;
  notText: number;
  /** Sentences for the files not taken (too large, unreadable, not text when named). */
  refused: string[];
  /** Why adding stopped before the end (the embedding server failed), or null. */
  stopped: string | null;
};

export type IndexDeps = { db: Db; target: EmbeddingTarget; reporter: Reporter; embed?: Pick<EmbedOptions, "timing" | "batchSize" | "signal"> };

/**
 * Re-embeds every document embedded by another model than the target's, from the chunks kept (the
 * files need not be there), each document in one transaction: a failure leaves the rest as they
 * were, to be done at the next add or search. Says so first.
 */
export async function reembedStale(deps: IndexDeps): Promise<number> {
  const { db, target, reporter } = deps;
  if (!hasOtherModel(db, target.ref)) return 0;
  const stale = listDocuments(db).filter((d) => d.model !== target.ref);
  if (stale.length === 0) return 0;
  const from = [...new Set(stale.map((d) => d.model))].join(", ");
  reporter.say(`the embedding model changed from ${from} to ${target.ref}: re-embedding the library's ${stale.length} document${stale.length === 1 ? "" : "s"}`);
  for (const [i, doc] of stale.entries()) {
    await reembedDocument(deps, doc, (done, total) => reporter.progress(`[${i + 1}/${stale.length}] re-embedding ${done}/${total} chunks of ${doc.path}`));
  }
  return stale.length;
}

/**
 * Re-embeds one document's kept chunks with the target's model, in one transaction, and only if
 * no other process changed the document meanwhile (then what it wrote stays). Throws an EmbeddingError.
 */
export async function reembedDocument(deps: IndexDeps, doc: LibraryDocument, onProgress?: (done: number, total: number) => void): Promise<void> {
  const { db, target } = deps;
  const chunks = documentChunks(db, doc.id);
  const vectors = await embedTexts(target, chunks.map((c) => c.text), { ...deps.embed, ...dimensionOf(db, target), ...(onProgress ? { onProgress } : {}) });
  const dimension = vectors[0]?.length ?? doc.dimension;
  replaceDocument(db, { ...doc, model: target.ref, dimension }, chunks.map((c, j) => ({ ...c, vector: vectors[j] as Float32Array })), { hash: doc.hash });
}

/**
 * Adds files to the library (or re-embeds them when their content changed): each read whole,
 * chunked, all its chunks embedded, then written in one transaction. A file already there with the
 * same content is left as it is. An embedding failure stops the rest; what was written stays whole.
 */
export async function addFiles(deps: IndexDeps, files: readonly string[], named: ReadonlySet<string>): Promise<AddSummary> {
  const { db, target, reporter } = deps;
  const summary: AddSummary = { added: 0, updated: 0, unchanged: 0, chunks: 0, notText: 0, refused: [], stopped: null };
  for (const [i, path] of files.entries()) {
    const read = await readDocument(path, path);
    if (read.kind !== "text") {
      if (read.kind === "not-text") summary.notText += 1;
      if (read.kind !== "not-text" || named.has(path)) summary.refused.push(read.why);
      continue;
    }
    const existing = getDocument(db, path);
    if (existing && existing.hash === read.hash && existing.model === target.ref) {
      // Touched, not changed: the file's size and time are the ones to compare with from now on.
      if (existing.mtime !== read.mtime || existing.size !== read.size) touchDocument(db, path, read.size, read.mtime);
      summary.unchanged += 1;
      continue;
    }
    const chunks = chunkText(read.text, { markdown: isMarkdown(path) });
    if (chunks.length === 0) {
      if (named.has(path)) summary.refused.push(`${path} has no text: skipped`);
      continue;
    }
    let vectors: Float32Array[];
    try {
      vectors = await embedTexts(target, chunks.map((c) => c.text), {
        ...deps.embed,
        ...dimensionOf(db, target),
        onProgress: (done, total) => reporter.progress(`[${i + 1}/${files.length}] embedding ${done}/${total} chunks of ${path}`),
      });
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      summary.stopped = error.message;
      return summary;
    }
    const dimension = vectors[0]?.length ?? 0;
    const written = replaceDocument(
      db,
      { path, hash: read.hash, mtime: read.mtime, size: read.size, model: target.ref, dimension },
      chunks.map((c, j) => ({ ...c, vector: vectors[j] as Float32Array })),
      { hash: existing?.hash ?? null },
    );
    // Another process wrote this file's document while this one embedded it: its copy stays, one copy.
    if (!written) {
      summary.unchanged += 1;
      continue;
    }
    if (existing) summary.updated += 1;
    else summary.added += 1;
    summary.chunks += chunks.length;
  }
  return summary;
}

/** The dimension the library's vectors of this model have, for the embedding client to check (none yet: nothing). */
export function dimensionOf(db: Db, target: EmbeddingTarget): { dimension?: number } {
  const dimension = modelDimension(db, target.ref);
  return dimension === undefined ? {} : { dimension };
}
