import { stat } from "node:fs/promises";
import { errorCode } from "../errors.ts";
import { protectedPaths, protection } from "../project/protected.ts";
import { listDocuments, removeDocument, replaceDocument, touchDocument } from "../store/library.ts";
import { chunkText, isMarkdown } from "./chunker.ts";
import { readDocument } from "./document-file.ts";
import { embedTexts, EmbeddingError } from "./embeddings.ts";
import { dimensionOf, type IndexDeps, reembedDocument } from "./indexer.ts";

/**
 * The most chunks a search embeds to bring the library up to date before it answers: a few
 * batches, so that a turn is not held by a large change; the rest is done by the next searches.
 */
export const REFRESH_CHUNKS = 256;

/** The built-in protected names (env files, private keys, .ssh, .git): a library added before they were left out gives them up. */
const BUILT_IN = protectedPaths([], []);

/**
 * Brings the library up to date with its files before a search, within `budget` chunks embedded:
 * a document whose file changed (size or time, then its hash) is read, chunked and embedded again;
 * one whose file is gone is taken out; one embedded by another model than the target's is
 * re-embedded from its kept chunks. Each document is written whole in one transaction, and only
 * if no other process wrote it meanwhile, so a search stopped or failing half way leaves every
 * document either as it was or done. What was not done is said in the sentences returned.
 * Throws only when the signal stopped it.
 */
export async function refreshLibrary(deps: IndexDeps, budget = REFRESH_CHUNKS): Promise<string[]> {
  const { db, target } = deps;
  const signal = deps.embed?.signal;
  let spent = 0;
  let reindexed = 0;
  const reembedded = new Set<string>();
  const dropped: string[] = [];
  const guarded: string[] = [];
  const deferred: string[] = [];
  const notes: string[] = [];
  for (const doc of listDocuments(db)) {
    if (signal?.aborted) throw new EmbeddingError("stopped");
    if (protection(doc.path, "/", BUILT_IN) !== null) {
      if (removeDocument(db, doc.path, { hash: doc.hash })) guarded.push(doc.path);
      continue;
    }
    let info;
    try {
      info = await stat(doc.path);
    } catch (error) {
      // Only a file that is not there is dropped; one that cannot be read now (a permission) stays.
      if (errorCode(error) === "ENOENT" && removeDocument(db, doc.path, { hash: doc.hash })) dropped.push(doc.path);
      continue;
    }
    const sameFile = Math.floor(info.mtimeMs) === doc.mtime && info.size === doc.size;
    if (sameFile && doc.model === target.ref) continue;
    try {
      if (sameFile) {
        if (spent + doc.chunks > budget) {
          deferred.push(doc.path);
          continue;
        }
        await reembedDocument(deps, doc);
        spent += doc.chunks;
        reembedded.add(doc.model);
        reindexed += 1;
        continue;
      }
      const read = await readDocument(doc.path, doc.path);
      if (read.kind !== "text") {
        notes.push(`${read.why}: the library keeps the passages it had of it (lembas library remove takes it out)`);
        continue;
      }
      if (read.hash === doc.hash && doc.model === target.ref) {
        touchDocument(db, doc.path, read.size, read.mtime);
        continue;
      }
      const chunks = chunkText(read.text, { markdown: isMarkdown(doc.path) });
      if (chunks.length === 0) {
        if (removeDocument(db, doc.path, { hash: doc.hash })) dropped.push(doc.path);
        continue;
      }
      if (spent + chunks.length > budget) {
        deferred.push(doc.path);
        continue;
      }
      const vectors = await embedTexts(target, chunks.map((c) => c.text), { ...deps.embed, ...dimensionOf(db, target) });
      replaceDocument(
        db,
        { path: doc.path, hash: read.hash, mtime: read.mtime, size: read.size, model: target.ref, dimension: vectors[0]?.length ?? 0 },
        chunks.map((c, j) => ({ ...c, vector: vectors[j] as Float32Array })),
        { hash: doc.hash },
      );
      spent += chunks.length;
      if (doc.model !== target.ref) reembedded.add(doc.model);
      reindexed += 1;
    } catch (error) {
      if (!(error instanceof EmbeddingError) || signal?.aborted) throw error;
      notes.push(`the library could not be brought up to date (${error.message}): the documents not yet done are searched as they were`);
      break;
    }
  }
  if (reindexed > 0) {
    const why = reembedded.size > 0 ? `the embedding model changed from ${[...reembedded].join(", ")} to ${target.ref}: re-embedded` : "re-indexed";
    notes.unshift(`${why} ${count(reindexed)}${reembedded.size > 0 ? "" : " that changed"}`);
  }
  if (guarded.length > 0) notes.push(`took out ${count(guarded.length)} that ${guarded.length === 1 ? "is a protected path" : "are protected paths"} (${guarded.slice(0, 3).join(", ")}${guarded.length > 3 ? ", …" : ""}): the library gives no secret to the model`);
  if (dropped.length > 0) notes.push(`took out ${count(dropped.length)} whose file is gone (${dropped.slice(0, 3).join(", ")}${dropped.length > 3 ? ", …" : ""})`);
  if (deferred.length > 0) {
    notes.push(`${count(deferred.length)} changed (or of another embedding model) ${deferred.length === 1 ? "is" : "are"} not re-indexed yet (a search embeds at most ${budget} chunks first): the next searches go on, or lembas library add ${deferred.length === 1 ? deferred[0] : "PATH…"} does it now`);
  }
  return notes;
}

function count(n: number): string {
  return `${n} document${n === 1 ? "" : "s"}`;
}
