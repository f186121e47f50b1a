/**
 * The best `k` of a stream of scored entries, kept in a binary min-heap of fixed size so a search
 * over many candidates costs O(n log k) and never sorts them all. Higher scores are better; equal
 * scores go to the shorter, then the alphabetically first key.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly ids: Int32Array;
  private size = 0;

  /** `keys[id]` breaks ties between equal scores. */
  constructor(
    readonly capacity: number,
    private readonly keys: readonly string[],
  ) {
    this.scores = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
  }

  /** Whether `capacity` entries are held, so that only a score above {@link floor} gets in. */
  get full(): boolean {
    return this.size === this.capacity;
  }

  /** The worst score held (-Infinity while not full). */
  get floor(): number {
    return this.full ? (this.scores[0] ?? -Infinity) : -Infinity;
  }

  /** Offers an entry; kept when among the best `capacity` so far. */
  push(id: number, score: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      this.scores[this.size] = score;
      this.ids[this.size] = id;
      this.up(this.size++);
      return;
    }
    if (!this.worse(this.ids[0] ?? 0, this.scores[0] ?? 0, id, score)) return;
    this.scores[0] = score;
    this.ids[0] = id;
    this.down(0);
  }

  /** The entries held, best first. */
  sorted(): { id: number; score: number }[] {
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i] ?? 0, score: this.scores[i] ?? 0 });
    return out.sort((a, b) => (this.worse(a.id, a.score, b.id, b.score) ? 1 : this.worse(b.id, b.score, a.id, a.score) ? -1 : 0));
  }

  /** Whether entry a ranks below entry b. */
  private worse(a: number, scoreA: number, b: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    const keyA = this.keys[a] ?? "";
    const keyB = this.keys[b] ?? "";
    if (keyA.length !== keyB.length) return keyA.length > keyB.length;
    return keyA > keyB;
  }

  private up(at: number): void {
    let i = at;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.lessAt(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(at: number): void {
    let i = at;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < this.size && this.lessAt(left, least)) least = left;
      if (right < this.size && this.lessAt(right, least)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private lessAt(i: number, j: number): boolean {
    return this.worse(this.ids[i] ?? 0, this.scores[i] ?? 0, this.ids[j] ?? 0, this.scores[j] ?? 0);
  }

  private swap(i: number, j: number): void {
    const score = this.scores[i] ?? 0;
    const id = this.ids[i] ?? 0;
    this.scores[i] = this.scores[j] ?? 0;
    this.ids[i] = this.ids[j] ?? 0;
    this.scores[j] = score;
    this.ids[j] = id;
  }
}
