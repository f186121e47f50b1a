/**
 * A command's output kept within a fixed size however much arrives: the first `headMax`
 * characters and a rolling tail of the last `tailMax`, with a count of what was left out between.
 */
export class BoundedOutput {
  private head = "";
  private tail = "";
  private dropped = 0;

  constructor(
    private readonly headMax: number,
    private readonly tailMax: number,
  ) {}

  append(text: string): void {
    let rest = text;
    if (this.tail === "" && this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === "") return;
    this.tail += rest;
    // Trimming only at twice the size keeps appends cheap while memory stays bounded.
    if (this.tail.length > this.tailMax * 2) this.trimTail();
  }

  /** Characters seen in all. */
  get total(): number {
    return this.head.length + this.dropped + this.tail.length;
  }

  /** The head and the tail, with a note of how much was left out between them. */
  text(): string {
    this.trimTail();
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n\n[… ${this.dropped} characters left out …]\n\n${this.tail}`;
  }

  private trimTail(): void {
    const cut = this.tail.length - this.tailMax;
    if (cut <= 0) return;
    this.dropped += cut;
    this.tail = this.tail.slice(cut);
  }
}

/**
 * Batches streamed text into at most one `send` per interval. What waits is bounded: past
 * `maxPending` characters the oldest are dropped, with a note (the final result has it all).
 */
export class ProgressBatcher {
  private pending = "";
  private skipped = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 100,
    private readonly maxPending = 16_000,
  ) {}

  push(text: string): void {
    this.pending += text;
    if (this.pending.length > this.maxPending) {
      this.skipped += this.pending.length - this.maxPending;
      this.pending = this.pending.slice(-this.maxPending);
    }
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends what waits now (also at the end of a run). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending === "" && this.skipped === 0) return;
    const text = this.skipped ? `[… ${this.skipped} characters skipped …]\n${this.pending}` : this.pending;
    this.pending = "";
    this.skipped = 0;
    try {
      this.send(text);
    } catch {
      // A client that fails to take progress must not fail the command.
    }
  }
}
