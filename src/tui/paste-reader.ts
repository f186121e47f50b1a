/** A bracketed paste's markers, as the terminal wraps what is pasted (bracketed paste mode, ?2004). */
export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";

/**
 * How long a paste whose end marker never comes is waited for: the paste ends after this long with
 * nothing more read, with what came of it, and what is typed next is keys again. A terminal sends a
 * paste as fast as the link allows, so a link would have to stall this long for one to be cut in two.
 */
export const UNTERMINATED_PASTE_MS = 2000;

/**
 * How long keys that may end in the beginning of a paste's start marker (past its Escape) wait for
 * its rest. Short: pi-tui waits on what is handed to it unfinished again. A marker
 * whose rest comes later still works: pi-tui's own reader joins the two and reads that paste as it
 * always did, only not in linear time (this reader hands on the characters it read, in order, only
 * in other chunks; a paste whose end never came is given one).
 */
export const PARTIAL_MARKER_MS = 10;

/** How many characters at the end of `text` are the beginning of the start marker (never all of it). */
function partialStart(text: string): number {
  for (let n = Math.min(PASTE_START.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(PASTE_START.slice(0, n))) return n;
  }
  return 0;
}

/**
 * The terminal's input as it is read, chunk by chunk, with each bracketed paste gathered whole before
 * it is handed on: `forward` gets the keys as they come and each paste as one chunk, markers and all
 * (`ESC[200~text ESC[201~`), so that the reader behind it (pi-tui's, which searched the whole paste
 * gathered so far for its end at every chunk: a 10 MB paste took 36 s) reads it in one pass.
 *
 * The end marker is looked for in each new chunk and the few characters before it, so a paste costs
 * its length once. The paste is the text up to the first end marker, whatever it holds (a start
 * marker in it is text); what follows the end in the same chunk is read as keys again, and a start
 * marker cut off at a chunk's end waits, with that chunk, for its rest (a moment; cut
 * right after its Escape, it goes on at once, and pi-tui's reader joins it to its rest).
 */
export class PasteReader {
  /** The paste under way: its chunks so far (null: none); `tail`, the last characters read of it. */
  private chunks: string[] | null = null;
  private tail = "";
  /** Keys whose end may be the beginning of a start marker. */
  private held = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly forward: (data: string) => void,
    private readonly waits = { partialMs: PARTIAL_MARKER_MS, unterminatedMs: UNTERMINATED_PASTE_MS },
  ) {}

  read(data: string): void {
    this.stopTimer();
    let rest = data;
    while (rest.length > 0) rest = this.chunks === null ? this.readKeys(rest) : this.readPaste(rest);
    if (this.chunks !== null) this.startTimer(this.waits.unterminatedMs, () => this.endPaste(""));
    else if (this.held) this.startTimer(this.waits.partialMs, () => this.forwardHeld());
  }

  /** What was held, and a paste under way, are dropped (the terminal stops reading). */
  clear(): void {
    this.stopTimer();
    this.chunks = null;
    this.tail = "";
    this.held = "";
  }

  /** Keys up to a paste's start; what is left of `data` to read as the paste. */
  private readKeys(data: string): string {
    const text = this.held + data;
    this.held = "";
    const at = text.indexOf(PASTE_START);
    if (at < 0) {
      // A chunk that may end in the beginning of a start marker waits for its rest whole, not cut
      // there: two Escapes read at once are one chunk to pi-tui (the rewind's Esc Esc). Not one that
      // ends in a lone Escape: pi-tui waits on that itself, and held here too it waited twice as long,
      // a key typed within that time read with it as Alt+key (a split marker's rest it joins itself).
      if (partialStart(text) > 1) this.held = text;
      else this.forward(text);
      return "";
    }
    if (at > 0) this.forward(text.slice(0, at));
    this.chunks = [];
    this.tail = "";
    return text.slice(at + PASTE_START.length);
  }

  /** A chunk of the paste under way; what follows its end marker, to read as keys again. */
  private readPaste(data: string): string {
    const seen = this.tail + data;
    const end = seen.indexOf(PASTE_END);
    if (end < 0) {
      this.chunks?.push(data);
      this.tail = seen.slice(-(PASTE_END.length - 1));
      return "";
    }
    // The marker may begin in the tail, which is already in the chunks.
    const inData = end - this.tail.length;
    return this.endPaste(data, inData);
  }

  /** The paste ends `at` characters into `data` (a negative `at`: in the chunks before); what is after its marker. */
  private endPaste(data: string, at = data.length): string {
    const chunks = this.chunks ?? [];
    chunks.push(data);
    const whole = chunks.join("");
    const endsAt = whole.length - data.length + at;
    this.chunks = null;
    this.tail = "";
    this.forward(`${PASTE_START}${whole.slice(0, endsAt)}${PASTE_END}`);
    return at < data.length ? data.slice(at + PASTE_END.length) : "";
  }

  private forwardHeld(): void {
    const held = this.held;
    this.held = "";
    if (held) this.forward(held);
  }

  private startTimer(ms: number, then: () => void): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      then();
    }, ms);
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
