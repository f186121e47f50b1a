import { fuse, matchExpression } from "../library/hybrid.ts";
import { MatrixBuilder, VectorMatrix } from "../library/vectors.ts";
import { codeChunkCount, codeFiles, codeGeneration, codePassages, codeTextMatches, readCodeVectors } from "../store/code-files.ts";
import type { Db } from "../store/db.ts";
import type { CodeHit } from "../tools/code-search-backend.ts";

/** How many candidates each ranking (vector, text) gives the fusion, at least (the library's). */
const CANDIDATES = 50;

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

  /** The best `limit` chunks for the query; without its vector (the embedding server failed), by its words only. */
  search(query: string, vector: Float32Array | null, model: string, limit: number, within?: (path: string) => boolean): CodeHit[] {
    const k = Math.max(CANDIDATES, limit * 4);
    let matrix = this.vectors(model);
    let fileIds: ReadonlySet<number> | undefined;
    if (within) {
      fileIds = new Set([...codeFiles(this.db, this.root).values()].filter((f) => f.chunks > 0 && within(f.path)).map((f) => f.id));
      matrix = subMatrix(matrix, fileIds);
    }
    const byVector = vector && matrix.matrix.rows > 0 && matrix.matrix.dimension === vector.length ? matrix.matrix.top(vector, k) : [];
    const match = matchExpression(query);
    const byText = match ? codeTextMatches(this.db, this.root, match, k, fileIds) : [];
    const fused = fuse([byVector, byText], limit);
    const passages = new Map(codePassages(this.db, fused.map((f) => f.id)).map((p) => [p.id, p]));
    return fused.flatMap((f) => {
      const p = passages.get(f.id);
      return p ? [{ path: p.path, startLine: p.startLine, endLine: p.endLine, text: p.text, score: f.score }] : [];
    });
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
