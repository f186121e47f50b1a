import { fuse, matchExpression } from "../library/hybrid.ts";
import { MatrixBuilder, VectorMatrix } from "../library/vectors.ts";
import { codeChunkCount, codeFiles, codeGeneration, codePassages, codeTextMatches, readCodeVectors } from "../store/code-files.ts";
import type { Db } from "../store/db.ts";
import type { CodeHit } from "../tools/code-search-backend.ts";
import { textWords } from "./unindexed-grep.ts";

/** How many candidates each ranking (vector, text) gives the fusion, at least (the library's). */
const CANDIDATES = 50;
/**
 * The relevance floor, relative to each ranking's best: a chunk whose cosine is under this share
 * of the best chunk's, or whose bm25 is under this share of the best's, is left out. Reciprocal
 * rank fusion scores ranks only: without a floor a small project's every chunk is an answer.
 */
export const VECTOR_FLOOR = 0.6;
export const TEXT_FLOOR = 0.5;

/** The best chunks, and how many more would have filled the limit but fell under the floor. */
export type CodeHits = { hits: CodeHit[]; cut: number };

type Held = { generation: number; model: string; matrix: VectorMatrix; fileIds: Float64Array };

/**
 * One root's index searched the library's way: cosine over every chunk's vector (held in memory,
 * read again when the root's generation moved), fused with FTS5's bm25 by reciprocal rank
 * (library/hybrid.ts). A path filter narrows both rankings to the files it takes.
 */
export class CodeSearcher {
  private held: Held | null = null;

  constructor(
    private readonly db: Db,
    private readonly root: string,
  ) {}

  /**
   * The best `limit` chunks for the query above the relevance floor; without its vector (the
   * embedding server failed), by its words only.
   */
  search(query: string, vector: Float32Array | null, model: string, limit: number, within?: (path: string) => boolean): CodeHits {
    const k = Math.max(CANDIDATES, limit * 4);
    let matrix = this.vectors(model);
    let fileIds: ReadonlySet<number> | undefined;
    if (within) {
      fileIds = new Set([...codeFiles(this.db, this.root).values()].filter((f) => f.chunks > 0 && within(f.path)).map((f) => f.id));
      matrix = subMatrix(matrix, fileIds);
    }
    const byVector = vector && matrix.matrix.rows > 0 && matrix.matrix.dimension === vector.length ? matrix.matrix.top(vector, k) : [];
    const match = matchExpression(textWords(query).join(" "));
    const byText = match ? codeTextMatches(this.db, this.root, match, k, fileIds) : [];
    const vectorKept = floored(byVector, (hit) => hit.score, VECTOR_FLOOR);
    // bm25 is lower for a better match (FTS5's rank): its negation is the relevance.
    const textKept = floored(byText, (hit) => -hit.rank, TEXT_FLOOR);
    const fused = fuse([vectorKept, textKept], limit);
    const candidates = new Set([...byVector, ...byText].map((hit) => hit.id)).size;
    const passages = new Map(codePassages(this.db, fused.map((f) => f.id)).map((p) => [p.id, p]));
    const hits = fused.flatMap((f) => {
      const p = passages.get(f.id);
      return p ? [{ path: p.path, startLine: p.startLine, endLine: p.endLine, text: p.text, score: f.score }] : [];
    });
    return { hits, cut: Math.max(0, Math.min(limit, candidates) - fused.length) };
  }

  private vectors(model: string): Held {
    const generation = codeGeneration(this.db, this.root);
    if (this.held?.generation === generation && this.held.model === model) return this.held;
    const rows = codeChunkCount(this.db, this.root);
    const builder = new MatrixBuilder(rows);
    const fileIds = new Float64Array(Math.max(1, rows));
    let n = 0;
    const read = readCodeVectors(this.db, this.root, model, (id, fileId, bytes) => {
      if (!builder.add(id, bytes)) return;
      if (n < fileIds.length) fileIds[n] = fileId;
      n += 1;
    });
    this.held = { generation: read.generation, model, matrix: builder.build(), fileIds: fileIds.subarray(0, n) };
    return this.held;
  }
}

/** A ranking (best first) without what falls under `share` of its best's relevance, nor anything of none. */
function floored<T>(ranking: readonly T[], relevance: (hit: T) => number, share: number): T[] {
  const best = ranking[0] === undefined ? 0 : relevance(ranking[0]);
  if (!(best > 0)) return [];
  return ranking.filter((hit) => relevance(hit) >= best * share);
}

/** The rows of the files named, as a matrix of their own. */
function subMatrix(held: Held, fileIds: ReadonlySet<number>): Held {
  const { matrix } = held;
  const dim = matrix.dimension;
  const ids: number[] = [];
  const data: number[] = [];
  for (let r = 0; r < matrix.rows; r++) {
    if (!fileIds.has(held.fileIds[r] ?? -1)) continue;
    ids.push(matrix.ids[r] ?? 0);
    for (let j = 0; j < dim; j++) data.push(matrix.data[r * dim + j] ?? 0);
  }
  return { ...held, matrix: new VectorMatrix(dim, Float64Array.from(ids), Float32Array.from(data)) };
}

/** A path filter: a glob when it has one of * ? [ {, else the file or directory it names (relative to the root). */
export function pathFilter(filter: string): (path: string) => boolean {
  const clean = filter.replace(/^\.\//, "").replace(/\/+$/, "");
  if (/[*?[{]/.test(clean)) {
    const glob = new Bun.Glob(clean);
    return (path) => glob.match(path);
  }
  if (clean === "" || clean === ".") return () => true;
  return (path) => path === clean || path.startsWith(`${clean}/`);
}
