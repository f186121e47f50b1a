import { type Component, Markdown, type MarkdownTheme } from "../kit.ts";
import { plain } from "./plain.ts";

/**
 * The model's answer as it streams: markdown cut into parts at blank lines outside code fences.
 * A finished part is parsed and drawn once and kept; only the part still growing is parsed again
 * at each frame, so a long answer costs what its last paragraph costs. A chunk is only kept until
 * the next frame (or until the text is asked for): the chunks of a frame are cleaned and cut as
 * one piece, so a fast stream costs the terminal a few array pushes a chunk.
 */
export class AnswerBlock implements Component {
  private readonly done: Markdown[] = [];
  private readonly live: Markdown;
  private tail = "";
  private readonly scan: Scan = { at: 0, fence: null };
  private cache: { width: number; lines: string[]; doneCount: number; doneLines: string[] } | null = null;

  constructor(
    private readonly theme: MarkdownTheme,
    text = "",
  ) {
    this.live = this.part("");
    if (text) this.append(text);
  }

  get text(): string {
    this.absorb();
    return this.doneText + this.tail;
  }

  private doneText = "";
  /** The chunks appended since the last frame, not yet cleaned nor cut. */
  private pending: string[] = [];

  append(delta: string): void {
    this.pending.push(delta);
  }

  /** The chunks since the last frame, cleaned and cut into finished parts as one piece. */
  private absorb(): void {
    if (this.pending.length === 0) return;
    const piece = this.pending.length === 1 ? (this.pending[0] ?? "") : this.pending.join("");
    this.pending = [];
    this.tail += plain(piece);
    for (;;) {
      const cut = settledEnd(this.tail, this.scan);
      if (cut < 0) break;
      const part = this.tail.slice(0, cut);
      this.doneText += this.tail.slice(0, cut);
      this.tail = this.tail.slice(cut);
      if (part.trim()) this.done.push(this.part(part.trimEnd()));
    }
    // The live part is given its text when it is drawn: a frame costs its chunks' length, not the paragraph's.
    this.liveStale = true;
  }

  private liveStale = false;

  /** Replaces the whole text (a retried step took back what it streamed). */
  reset(text = ""): void {
    this.pending = [];
    this.done.length = 0;
    this.doneText = "";
    this.tail = "";
    this.scan.at = 0;
    this.scan.searched = 0;
    this.scan.fence = null;
    this.cache = null;
    this.append(text);
  }

  render(width: number): readonly string[] {
    this.absorb();
    let doneLines: string[];
    if (this.cache && this.cache.width === width && this.cache.doneCount === this.done.length) doneLines = this.cache.doneLines;
    else {
      doneLines = [];
      for (const part of this.done) {
        doneLines.push("", ...part.render(width));
      }
    }
    if (this.liveStale) {
      this.liveStale = false;
      // Blank lines before it go, never the first line's indent (an answer that opens with indented code).
      this.live.setText(this.tail.replace(/^(?:[ \t]*\n)+/, "").trimEnd());
    }
    const liveLines = /\S/.test(this.tail) ? ["", ...this.live.render(width)] : [];
    const lines = liveLines.length === 0 ? doneLines : [...doneLines, ...liveLines];
    this.cache = { width, lines, doneCount: this.done.length, doneLines };
    return lines;
  }

  invalidate(): void {
    this.cache = null;
    for (const part of this.done) part.invalidate();
    this.live.invalidate();
  }

  private part(text: string): Markdown {
    return new Markdown(text, 0, 0, this.theme, undefined, { preserveOrderedListMarkers: true });
  }
}

/** How far the live part was read: the start of the first line not yet settled, and the fence open there. */
/** Where a scan stopped: the line it reads next, how far that line was searched for its end, and the fence it is in. */
export type Scan = { at: number; fence: { char: string; length: number } | null; searched?: number };

/**
 * Where the text's first finished part ends (after its blank line), or -1: a blank line outside a
 * code fence, not followed by an indented line (a list item's next paragraph belongs with it).
 * A fence closes only at a fence of its own character and at least its length, with nothing after
 * it (CommonMark's rule): a ``` inside a ~~~ or ```` fence is code. `scan` carries where the last
 * call stopped, so that a long code block streaming is read once, not once per chunk; after a cut
 * it starts over (the cut text is sliced off).
 */
export function settledEnd(text: string, scan: Scan = { at: 0, fence: null }): number {
  while (scan.at < text.length) {
    // A long line streaming is searched for its end once, not from its start at every chunk.
    const end = text.indexOf("\n", Math.max(scan.at, scan.searched ?? 0));
    if (end < 0) {
      scan.searched = text.length;
      return -1;
    }
    const line = text.slice(scan.at, end);
    const next = end + 1;
    const mark = FENCE.exec(line);
    const run = mark?.[1] ?? "";
    const after = mark?.[2] ?? "";
    if (scan.fence) {
      if (run[0] === scan.fence.char && run.length >= scan.fence.length && after.trim() === "") scan.fence = null;
    } else if (mark && !(run[0] === "`" && after.includes("`"))) {
      scan.fence = { char: run[0] ?? "`", length: run.length };
    } else if (line.trim() === "" && scan.at > 0) {
      // The line after the blank one must have started, and not be indented, to know the part is done.
      const following = text.slice(next, next + 1);
      if (!following) return -1;
      if (following !== " " && following !== "\t" && following !== "\n") {
        scan.at = 0;
        scan.searched = 0;
        return next;
      }
    }
    scan.at = next;
  }
  return -1;
}

/** A code fence's line: up to three spaces, three or more backticks or tildes, then its info string. */
const FENCE = /^ {0,3}(`{3,}|~{3,})([^]*)$/;
