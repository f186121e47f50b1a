import { type Component, Markdown, type MarkdownTheme } from "../kit.ts";

/**
 * The model's answer as it streams: markdown cut into parts at blank lines outside code fences.
 * A finished part is parsed and drawn once and kept; only the part still growing is parsed again
 * at each chunk, so a long answer costs what its last paragraph costs.
 */
export class AnswerBlock implements Component {
  private readonly done: Markdown[] = [];
  private readonly live: Markdown;
  private tail = "";
  private cache: { width: number; lines: string[]; doneCount: number; doneLines: string[] } | null = null;

  constructor(
    private readonly theme: MarkdownTheme,
    text = "",
  ) {
    this.live = this.part("");
    if (text) this.append(text);
  }

  get text(): string {
    return this.doneText + this.tail;
  }

  private doneText = "";

  append(delta: string): void {
    this.tail += delta;
    for (;;) {
      const cut = settledEnd(this.tail);
      if (cut < 0) break;
      const part = this.tail.slice(0, cut);
      this.doneText += this.tail.slice(0, cut);
      this.tail = this.tail.slice(cut);
      if (part.trim()) this.done.push(this.part(part.trimEnd()));
    }
    this.live.setText(this.tail.trim());
  }

  /** Replaces the whole text (a retried step took back what it streamed). */
  reset(text = ""): void {
    this.done.length = 0;
    this.doneText = "";
    this.tail = "";
    this.cache = null;
    this.append(text);
  }

  render(width: number): readonly string[] {
    let doneLines: string[];
    if (this.cache && this.cache.width === width && this.cache.doneCount === this.done.length) doneLines = this.cache.doneLines;
    else {
      doneLines = [];
      for (const part of this.done) {
        doneLines.push("", ...part.render(width));
      }
    }
    const liveLines = this.tail.trim() ? ["", ...this.live.render(width)] : [];
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

/**
 * Where the text's first finished part ends (after its blank line), or -1: a blank line outside a
 * code fence, not followed by an indented line (a list item's next paragraph belongs with it).
 */
export function settledEnd(text: string): number {
  let fenced = false;
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\n", at);
    if (end < 0) return -1;
    const line = text.slice(at, end);
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const next = end + 1;
    if (!fenced && line.trim() === "" && at > 0) {
      // The line after the blank one must have started, and not be indented, to know the part is done.
      const following = text.slice(next, next + 1);
      if (following && following !== " " && following !== "\t" && following !== "\n") return next;
    }
    at = next;
  }
  return -1;
}
