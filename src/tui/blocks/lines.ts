import { type Component, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "../kit.ts";
import { plain } from "./plain.ts";

/**
 * A block of the transcript whose lines depend only on its text and the width: rendered once per
 * width and kept, so a finished block costs nothing while the live one streams below it.
 */
export abstract class CachedBlock implements Component {
  private width = -1;
  private lines: readonly string[] = [];

  protected abstract draw(width: number): string[];

  render(width: number): readonly string[] {
    if (width !== this.width) {
      this.lines = this.draw(width).map((line) => (visibleWidth(line) > width ? truncateToWidth(line, width) : line));
      this.width = width;
    }
    return this.lines;
  }

  /** The block's content changed: it is drawn again on the next frame. */
  invalidate(): void {
    this.width = -1;
  }
}

/** Text wrapped to the width with `first` before its first line and `rest` before the others. */
export function hanging(text: string, width: number, first: string, rest: string): string[] {
  const inner = Math.max(1, width - visibleWidth(first));
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    const wrapped = paragraph === "" ? [""] : wrapTextWithAnsi(paragraph, inner);
    for (const line of wrapped) out.push((out.length === 0 ? first : rest) + line);
  }
  return out;
}

/** One line of the transcript: a notice, an error, a change of model; wrapped when long. */
export class LineBlock extends CachedBlock {
  constructor(
    private readonly text: string,
    private readonly paint: (text: string) => string = (t) => t,
    private readonly mark = "",
  ) {
    super();
    this.text = plain(text);
  }

  protected draw(width: number): string[] {
    const pad = " ".repeat(visibleWidth(this.mark));
    return ["", ...hanging(this.text, width, this.mark, pad).map(this.paint)];
  }
}
