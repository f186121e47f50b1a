import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";

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

  append(delta: string): void {
    this.text += plain(delta);
    this.last = Date.now();
    this.invalidate();
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
    const words = this.text.trim().split(/\s+/).filter(Boolean).length;
    if (this.folded) return ["", this.theme.dim(`∴ thought${this.seconds ? ` for ${this.seconds}s` : ""} (${words} words)`)];
    const lines = hanging(this.text.trim(), width, "∴ ", "  ");
    const shown = lines.length > LIVE_LINES ? ["  …", ...lines.slice(-LIVE_LINES)] : lines;
    return ["", ...shown.map((line) => this.theme.dim(this.theme.italic(line)))];
  }
}
