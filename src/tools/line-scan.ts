/** Characters of a line kept to show, as ripgrep's `--max-columns` keeps (its preview). */
export const MAX_COLUMNS = 4000;
/** Characters of a line held at once to match against; a longer line is matched a window at a time. */
const WINDOW = 256 * 1024;
/** How much consecutive windows share: a match up to this long is found whatever window it straddles. */
const OVERLAP = 4096;

/** One line of a file: its start (at most {@link MAX_COLUMNS} characters), whether it matched, its length when cut. */
export type ScannedLine = { n: number; text: string; match: boolean; cut?: { length: number } };

/**
 * Tests lines against a regular expression holding at most a window of each. A line that fits
 * one window is tested whole, as before. A longer one is tested in overlapping windows: a window
 * after the first is searched from its second character, so `^` cannot match in the middle of a
 * line, and a match ending at the end of a window before the last is left to the next window, so
 * `$` cannot either. A match longer than the overlap in such a line may be missed.
 */
class LineMatcher {
  private readonly whole: RegExp;
  private readonly windowed: RegExp;

  constructor(regex: RegExp) {
    this.whole = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ""));
    this.windowed = new RegExp(regex.source, `${this.whole.flags}g`);
  }

  test(window: string, first: boolean, last: boolean): boolean {
    if (first && last) return this.whole.test(window);
    this.windowed.lastIndex = first ? 0 : 1;
    const found = this.windowed.exec(window);
    if (!found) return false;
    return last || found.index + found[0].length < window.length;
  }
}

/** What is known of the line being read. */
type Current = { preview: string; length: number; held: string; windows: number; matched: boolean; lastChar: string };

const fresh = (): Current => ({ preview: "", length: 0, held: "", windows: 0, matched: false, lastChar: "" });

/**
 * The lines of a stream of UTF-8 text with whether each matches `regex`, holding a bounded amount
 * of each line however long it is: a window to match against and the start to show.
 */
export async function* scanLines(stream: ReadableStream<Uint8Array>, regex: RegExp): AsyncGenerator<ScannedLine> {
  const matcher = new LineMatcher(regex);
  const decoder = new TextDecoder();
  let line = fresh();
  let n = 0;
  const append = (piece: string): void => {
    if (piece === "") return;
    line.length += piece.length;
    line.lastChar = piece.at(-1) ?? "";
    if (line.preview.length < MAX_COLUMNS) line.preview += piece.slice(0, MAX_COLUMNS - line.preview.length);
    if (line.matched) return;
    line.held += piece;
    while (line.held.length > WINDOW) {
      if (matcher.test(line.held.slice(0, WINDOW), line.windows === 0, false)) {
        line.matched = true;
        line.held = "";
        return;
      }
      line.held = line.held.slice(WINDOW - OVERLAP);
      line.windows++;
    }
  };
  const finish = (): ScannedLine => {
    const match = line.matched || matcher.test(line.held, line.windows === 0, true);
    const length = line.lastChar === "\r" ? line.length - 1 : line.length;
    const text = line.preview.length > length ? line.preview.slice(0, length) : line.preview;
    const scanned: ScannedLine = { n: ++n, text, match, ...(length > text.length ? { cut: { length } } : {}) };
    line = fresh();
    return scanned;
  };
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
      append(text.slice(from, at));
      yield finish();
      from = at + 1;
    }
    append(text.slice(from));
  }
  append(decoder.decode());
  if (line.length > 0) yield finish();
}
