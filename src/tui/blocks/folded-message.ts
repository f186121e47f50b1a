import { visibleWidth } from "../kit.ts";
import { hanging } from "./lines.ts";
import { plain } from "./plain.ts";

/** A message that wraps to at most this many rows is drawn whole. */
const WHOLE_ROWS = 20;
/** A longer one shows its first rows, a line saying how much is not shown, and its last rows. */
const HEAD_ROWS = 8;
const TAIL_ROWS = 2;

/** A message as drawn: its rows, and when it is long, the line that stands for its middle and its last rows. */
export type Folded = { head: string[]; hidden: string | null; tail: string[] };

/**
 * A person's message wrapped to the width, its middle left out when it is long ("… 25,912 more
 * lines"): the transcript shows that it was sent, not all of it (the model and the store have it
 * whole). The work is that of the rows drawn whatever the message's size: only its first lines
 * and its last are cleaned and wrapped, the rest is counted (a 3 MB prompt took seconds to wrap).
 */
export function foldedMessage(sent: string, width: number, first: string, rest: string): Folded {
  // Its trailing blank lines say nothing (a substring: the text is not copied).
  let last = sent.length;
  while (last > 0 && /\s/.test(sent[last - 1] ?? "")) last--;
  const text = last < sent.length ? sent.slice(0, last) : sent;
  const inner = Math.max(1, width - visibleWidth(first));
  // As much of a line as its first rows can hold (four characters a column leaves room for marks).
  const reach = (rows: number) => (rows + 1) * inner * 4;
  const rows: string[] = [];
  /** The row each line read begins at. */
  const starts: number[] = [];
  let at = 0;
  let whole = false;
  for (;;) {
    const end = lineEnd(text, at);
    const line = text.slice(at, Math.min(end, at + reach(WHOLE_ROWS)));
    starts.push(rows.length);
    rows.push(...hanging(plain(line), width, rows.length === 0 ? first : rest, rest));
    if (at + line.length < end || rows.length > WHOLE_ROWS) break;
    if (end >= text.length) {
      whole = true;
      break;
    }
    at = end + 1;
  }
  if (whole) return { head: rows, hidden: null, tail: [] };

  const head = rows.slice(0, HEAD_ROWS);
  const headLines = starts.filter((row) => row < HEAD_ROWS).length;
  // The last line (its end when it is long), unless the head showed it all.
  const lastStart = text.lastIndexOf("\n", last - 1) + 1;
  const lastIndex = lineCount(text, lastStart) - 1;
  // A long last line shows its end on one row, not wrapped (where a wrap of the whole would break it is unknown).
  const cut = last - lastStart > inner;
  const end = cut ? `…${text.slice(last - inner + 1, last)}` : text.slice(lastStart, last);
  const inHead = (starts[lastIndex + 1] ?? Number.POSITIVE_INFINITY) <= HEAD_ROWS;
  const tail = inHead ? [] : cut ? [rest + plain(end)] : hanging(plain(end), width, rest, rest).slice(-TAIL_ROWS);
  const hiddenLines = lineCount(text, text.length) - headLines - (tail.length > 0 && lastIndex >= headLines ? 1 : 0);
  // The head may end inside a long line: the rest of it is not shown either.
  const cutLine = (starts[headLines] ?? Number.POSITIVE_INFINITY) > HEAD_ROWS;
  const more = `${thousands(hiddenLines)} more ${hiddenLines === 1 ? "line" : "lines"}`;
  if (hiddenLines > 0) return { head, hidden: cutLine ? `… the rest of a long line and ${more}` : `… ${more}`, tail };
  // Only the middle of a long line is left out: it is counted in characters (near enough: the spaces a wrap drops are not).
  const shown = [...head, ...tail].reduce((sum, row) => sum + row.length - rest.length, 0);
  return { head, hidden: `… ${thousands(Math.max(0, last - shown))} more characters`, tail };
}

/** Where the line that starts at `at` ends (its line break, or the text's end). */
function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end < 0 ? text.length : end;
}

/** How many lines the text has up to `upTo` (counted by searching for line breaks, not split). */
function lineCount(text: string, upTo: number): number {
  let count = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < upTo; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function thousands(n: number): string {
  return n.toLocaleString("en-US");
}
