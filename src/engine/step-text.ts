/**
 * The most characters of one model call's answer, and as many of its reasoning, that are kept
 * (stored, shown, sent back). Far above any model's output limit: only a model stuck in a loop
 * streams more, and it must not grow the store and the service by hundreds of megabytes.
 */
export const STEP_TEXT_LIMIT = 1_000_000;

/**
 * One stream of a model call's text (its answer or its reasoning), kept up to a bound: what comes
 * past it is counted, not kept, and {@link KeptText.close} says how much was left out.
 */
export class KeptText {
  private kept = "";
  private dropped = 0;
  private closed = false;

  /** @param what what the text is, for the note: "answer" or "reasoning" */
  constructor(
    private readonly what: string,
    private readonly limit = STEP_TEXT_LIMIT,
  ) {}

  get text(): string {
    return this.kept;
  }

  /** Takes a piece; returns the part of it that is kept ("" past the bound). */
  add(delta: string): string {
    const room = this.limit - this.kept.length;
    if (room >= delta.length) {
      this.kept += delta;
      return delta;
    }
    const taken = room > 0 ? delta.slice(0, room) : "";
    this.kept += taken;
    this.dropped += delta.length - taken.length;
    return taken;
  }

  /** Ends the text: the note of what was left out is added to it and returned (null when nothing was, or once said). */
  close(): string | null {
    if (this.closed || this.dropped === 0) return null;
    this.closed = true;
    const note = `\n\n[… ${this.dropped.toLocaleString("en-US")} more characters of this ${this.what} left out: lembas keeps at most ${this.limit.toLocaleString("en-US")} of one model call's ${this.what}]`;
    this.kept += note;
    return note;
  }
}
