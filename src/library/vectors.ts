/** A scored row of the matrix: the chunk id and its similarity. */
export type Scored = { id: number; score: number };

/**
 * Every chunk's vector in one Float32Array (row i is chunk ids[i]), L2-normalised: a query's
 * cosine with each is a dot product, found by a brute-force scan.
 */
export class VectorMatrix {
  constructor(
    readonly dimension: number,
    readonly ids: Float64Array,
    readonly data: Float32Array,
  ) {}

  get rows(): number {
    return this.ids.length;
  }

  /** The `k` rows most like `query` (normalised, of the matrix's dimension), best first. */
  top(query: Float32Array, k: number): Scored[] {
    const dim = this.dimension;
    const data = this.data;
    const n = this.ids.length;
    const scores = new Float32Array(k).fill(-Infinity);
    const rows = new Int32Array(k).fill(-1);
    let floor = -Infinity;
    for (let r = 0, base = 0; r < n; r++, base += dim) {
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += (data[base + j] as number) * (query[j] as number);
      if (dot <= floor) continue;
      // Insertion into the k best, kept sorted high to low.
      let at = k - 1;
      while (at > 0 && (scores[at - 1] as number) < dot) {
        scores[at] = scores[at - 1] as number;
        rows[at] = rows[at - 1] as number;
        at--;
      }
      scores[at] = dot;
      rows[at] = r;
      floor = scores[k - 1] as number;
    }
    const out: Scored[] = [];
    for (let i = 0; i < k; i++) {
      const row = rows[i] as number;
      if (row < 0) break;
      out.push({ id: this.ids[row] as number, score: scores[i] as number });
    }
    return out;
  }
}

/** Builds a matrix from rows given one at a time (the store's blobs), growing as needed. */
export class MatrixBuilder {
  private ids: Float64Array;
  private data = new Float32Array(0);
  private n = 0;
  dimension: number | null = null;

  constructor(capacity = 1024) {
    this.ids = new Float64Array(Math.max(1, capacity));
  }

  /** Adds a row; a vector of another dimension than the first is left out (false). */
  add(id: number, bytes: Uint8Array): boolean {
    const dim = bytes.byteLength / 4;
    this.dimension ??= dim;
    if (dim !== this.dimension) return false;
    if (this.n === this.ids.length) this.grow();
    if (this.data.length === 0) this.data = new Float32Array(this.ids.length * dim);
    // The blob's bytes may not be 4-aligned: copy them through a byte view.
    new Uint8Array(this.data.buffer, this.n * dim * 4, dim * 4).set(bytes);
    this.ids[this.n] = id;
    this.n += 1;
    return true;
  }

  /** The matrix; the rows are not copied when the builder was made for exactly as many. */
  build(): VectorMatrix {
    const dim = this.dimension ?? 0;
    return new VectorMatrix(dim, this.ids.subarray(0, this.n), this.data.subarray(0, this.n * dim));
  }

  private grow(): void {
    const ids = new Float64Array(this.ids.length * 2);
    ids.set(this.ids);
    this.ids = ids;
    if (this.dimension !== null && this.data.length > 0) {
      const data = new Float32Array(ids.length * this.dimension);
      data.set(this.data);
      this.data = data;
    }
  }
}
