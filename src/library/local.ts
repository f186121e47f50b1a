import type { Db } from "../store/db.ts";
import { MAX_CHUNK_CHARS } from "./chunker.ts";
import { chunkCount, documentCount, libraryGeneration, passagesByIds, readVectors, textMatches } from "../store/library.ts";
import type { LibraryBackend, Passage } from "../tools/library-backend.ts";
import type { TargetResult } from "./embedding-target.ts";
import { embedTexts } from "./embeddings.ts";
import { fuse, matchExpression } from "./hybrid.ts";
import { dimensionOf, QUIET, type Reporter } from "./indexer.ts";
import { refreshLibrary } from "./refresh.ts";
import { MatrixBuilder, type VectorMatrix } from "./vectors.ts";

/** How many candidates each ranking (vector, text) gives the fusion, at least. */
const CANDIDATES = 50;
export const DEFAULT_LIMIT = 5;
export const MAX_LIMIT = 50;
/** The most of a query embedded (a chunk's size, with room): a real model refuses an input past its context. */
export const MAX_QUERY_CHARS = 4 * MAX_CHUNK_CHARS;

export type SearchTiming = { embedMs: number; vectorMs: number; textMs: number; fetchMs: number };

/**
 * The device's own library in the store: hybrid search (cosine over every chunk's vector, brute
 * force, fused with FTS5's bm25 by reciprocal rank). The vectors are held in memory in one
 * Float32Array after the first search, read again only when the library changed (in any process:
 * library_state.generation).
 */
export class LocalLibrary implements LibraryBackend {
  readonly kind = "local";
  private matrix: { generation: number; model: string; matrix: VectorMatrix } | null = null;

  constructor(
    private readonly db: Db,
    private readonly target: () => TargetResult,
    private readonly reporter: Reporter = QUIET,
  ) {}

  available(): boolean {
    return documentCount(this.db) > 0;
  }

  /** Brings the library up to date with its files and model, bounded (refresh.ts); the sentences to say. */
  async refresh(signal: AbortSignal): Promise<string[]> {
    const target = this.target();
    if (!target.ok) return [];
    return refreshLibrary({ db: this.db, target: target.value, reporter: this.reporter, embed: { signal } });
  }

  async search(query: string, limit: number, signal: AbortSignal, timing?: SearchTiming): Promise<Passage[]> {
    const target = this.target();
    if (!target.ok) throw new Error(target.error);
    this.model = target.value.ref;
    const t = performance.now();
    const [vector] = await embedTexts(target.value, [query.slice(0, MAX_QUERY_CHARS)], { signal, ...dimensionOf(this.db, target.value) });
    if (!vector) return [];
    if (timing) timing.embedMs += performance.now() - t;
    return this.searchVector(query, vector, limit, timing);
  }

  /** The hybrid search for a query whose vector is known (the benchmark calls it directly). */
  searchVector(query: string, vector: Float32Array, limit: number, timing?: SearchTiming): Passage[] {
    const k = Math.max(CANDIDATES, limit * 4);
    let t = performance.now();
    const byVector = this.vectors().top(vector, k);
    t = lap(timing, "vectorMs", t);
    const match = matchExpression(query);
    const byText = match ? textMatches(this.db, match, k) : [];
    t = lap(timing, "textMs", t);
    const fused = fuse([byVector, byText], limit);
    const passages = new Map(passagesByIds(this.db, fused.map((f) => f.id)).map((p) => [p.id, p]));
    lap(timing, "fetchMs", t);
    return fused.flatMap((f) => {
      const p = passages.get(f.id);
      return p ? [{ path: p.path, startLine: p.startLine, endLine: p.endLine, text: p.text, score: f.score }] : [];
    });
  }

  /** Only the vector part: the `k` nearest chunks' ids (the benchmark's measure against the floor). */
  nearest(vector: Float32Array, k: number): { id: number; score: number }[] {
    return this.vectors().top(vector, k);
  }

  /** The model whose vectors are searched (the last search's target's); unset: every chunk's. */
  private model: string | undefined;

  private vectors(): VectorMatrix {
    const generation = libraryGeneration(this.db);
    const model = this.model ?? "";
    if (this.matrix?.generation === generation && this.matrix.model === model) return this.matrix.matrix;
    const builder = new MatrixBuilder(chunkCount(this.db));
    const read = readVectors(this.db, (id, bytes) => builder.add(id, bytes), this.model);
    this.matrix = { generation: read.generation, model, matrix: builder.build() };
    return this.matrix.matrix;
  }
}

function lap(timing: SearchTiming | undefined, key: keyof SearchTiming, since: number): number {
  const now = performance.now();
  if (timing) timing[key] += now - since;
  return now;
}
