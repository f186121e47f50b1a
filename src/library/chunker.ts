/** A passage of a document: its text and the lines it spans (1-based, inclusive). */
export type Chunk = { text: string; startLine: number; endLine: number };

export type ChunkOptions = {
  /** Markdown: a heading starts a new chunk (outside fenced code). */
  markdown?: boolean;
  /** The most characters of a chunk (a longer line is cut into pieces of its own). */
  maxChars?: number;
  /** Lines a chunk cut for size repeats of the one before, so a passage cut in two is found whole in one. */
  overlapLines?: number;
};

export const MAX_CHUNK_CHARS = 1_500;
export const OVERLAP_LINES = 3;

type Unit = { text: string; line: number; heading: boolean };

/**
 * Splits a document into chunks by lines: each at most maxChars, a markdown heading starting a
 * new one, a chunk cut for size overlapping the previous by a few lines. Blank chunks are left out.
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxChars = options.maxChars ?? MAX_CHUNK_CHARS;
  const overlap = options.overlapLines ?? OVERLAP_LINES;
  const chunks: Chunk[] = [];
  let current: Unit[] = [];
  let chars = 0;
  const flush = (): void => {
    const body = current.map((u) => u.text).join("\n");
    const first = current[0];
    const last = current.at(-1);
    if (first && last && body.trim() !== "") chunks.push({ text: body, startLine: first.line, endLine: last.line });
  };
  for (const unit of units(text, maxChars, options.markdown === true)) {
    if (current.length > 0 && unit.heading) {
      flush();
      current = [];
      chars = 0;
    } else if (current.length > 0 && chars + unit.text.length + 1 > maxChars) {
      flush();
      current = carried(current, overlap, maxChars - unit.text.length - 1);
      chars = current.reduce((n, u) => n + u.text.length + 1, 0);
    }
    current.push(unit);
    chars += unit.text.length + 1;
  }
  flush();
  return chunks;
}

/** The last lines of a chunk cut for size that the next one repeats: whole lines only, fitting in `room`. */
function carried(units: readonly Unit[], overlap: number, room: number): Unit[] {
  const out: Unit[] = [];
  let chars = 0;
  for (let i = units.length - 1; i >= 0 && out.length < overlap; i--) {
    const unit = units[i];
    if (!unit || unit.heading) break;
    // A piece of a cut line is no line to repeat.
    if (units[i - 1]?.line === unit.line || units[i + 1]?.line === unit.line) break;
    if (chars + unit.text.length + 1 > room) break;
    chars += unit.text.length + 1;
    out.unshift(unit);
  }
  return out;
}

/** The document's lines, a line longer than maxChars cut into pieces; headings marked in markdown. */
function* units(text: string, maxChars: number, markdown: boolean): Generator<Unit> {
  let line = 0;
  let fenced = false;
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  for (const raw of lines) {
    line += 1;
    if (markdown && /^\s{0,3}(```|~~~)/.test(raw)) fenced = !fenced;
    const heading = markdown && !fenced && /^#{1,6}\s/.test(raw);
    if (raw.length <= maxChars) {
      yield { text: raw, line, heading };
      continue;
    }
    for (let at = 0; at < raw.length; at += maxChars) yield { text: raw.slice(at, at + maxChars), line, heading: heading && at === 0 };
  }
}

/** Whether a path is markdown, by its name. */
export function isMarkdown(path: string): boolean {
  return /\.(md|markdown|mdx)$/i.test(path);
}
