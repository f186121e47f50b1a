import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";
import { counted } from "../../plural.ts";

/** How many lines of reasoning show while it streams: the newest, so that it never floods the screen. */
const LIVE_LINES = 6;

/** The model's reasoning: dimmed while it streams, folded to one line once the answer starts. */
export class ReasoningBlock extends CachedBlock {
  private text = "";
  private folded = false;
  private readonly started = Date.now();
  private last = this.started;
  private seconds: number | null = null;

  constructor(private readonly theme: Theme) {
    super();
  }

  /** The chunks since the last frame: cleaned as one piece when drawn, so a chunk costs a push. */
  private pending: string[] = [];

  append(delta: string): void {
    this.pending.push(delta);
    this.last = Date.now();
    this.invalidate();
  }

  private absorb(): string {
    if (this.pending.length > 0) {
      this.text += plain(this.pending.join(""));
      this.pending = [];
    }
    return this.text;
  }

  get isFolded(): boolean {
    return this.folded;
  }

  /** The answer started (or the step ended): one line says that it thought, and for how long. */
  fold(): void {
    if (this.folded) return;
    this.folded = true;
    // Until its last piece, not until the fold: an approval waited on after it is not thinking.
    this.seconds = Math.max(1, Math.round((this.last - this.started) / 1000));
    this.invalidate();
  }

  /** Folded at once, as a resumed session shows its history. */
  static finished(text: string, theme: Theme): ReasoningBlock {
    const block = new ReasoningBlock(theme);
    block.text = plain(text);
    block.folded = true;
    return block;
  }

  protected draw(width: number): string[] {
    const text = this.absorb().trim();
    if (this.folded) {
      const words = text.split(/\s+/).filter(Boolean).length;
      return ["", this.theme.dim(`∴ thought${this.seconds ? ` for ${this.seconds}s` : ""} (${counted(words, "word")})`)];
    }
    return ["", ...liveLines(text, width).map((line) => this.theme.dim(this.theme.italic(line)))];
  }
}

/**
 * The newest LIVE_LINES lines of the reasoning wrapped to the width, under "  …" when there are
 * more: its lines wrapped from the last one back until there are more than LIVE_LINES (each line
 * wraps on its own), so a frame of a long reasoning costs its last lines, not all of it.
 */
export function liveLines(text: string, width: number): string[] {
  const lines = text.split("\n");
  const tail: string[] = [];
  for (let i = lines.length - 1; i > 0 && tail.length <= LIVE_LINES; i--) tail.unshift(...hanging(lines[i] ?? "", width, "  ", "  "));
  const wrapped = tail.length > LIVE_LINES ? tail : hanging(text, width, "∴ ", "  ");
  return wrapped.length > LIVE_LINES ? ["  …", ...wrapped.slice(-LIVE_LINES)] : wrapped;
}
