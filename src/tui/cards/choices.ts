import { matchesKey, truncateToWidth } from "../kit.ts";
import type { Theme } from "../theme.ts";

/** One row of a card's list: what it says, and a dim line under it where there is more to say. */
export type Choice = { label: string; description?: string };

/** What a key did to a list: picked a row (digit or Enter), moved the highlight, or nothing. */
export type ChoiceKey = { type: "pick"; index: number; by: "digit" | "enter" } | { type: "moved" } | null;

/**
 * The numbered rows a card is answered with: a digit picks a row (0 the tenth; later rows by arrows), ↑↓ move the highlight, Enter
 * picks the highlighted one. It keeps only the highlight; what a row means is the card's.
 */
export class ChoiceList {
  private selected = 0;

  constructor(private readonly rows: readonly Choice[]) {}

  get highlighted(): number {
    return this.selected;
  }

  key(data: string): ChoiceKey {
    // 0 is the tenth row, as on the keyboard's number row.
    const digit = data === "0" ? 10 : data.length === 1 && data >= "1" && data <= "9" ? Number(data) : 0;
    if (digit >= 1 && digit <= this.rows.length) {
      this.selected = digit - 1;
      return { type: "pick", index: digit - 1, by: "digit" };
    }
    const n = this.rows.length;
    if (matchesKey(data, "up")) this.selected = (this.selected + n - 1) % n;
    else if (matchesKey(data, "down")) this.selected = (this.selected + 1) % n;
    else if (matchesKey(data, "enter")) return { type: "pick", index: this.selected, by: "enter" };
    else return null;
    return { type: "moved" };
  }

  /** The rows, numbered; `mark` puts something between the number and the label (a tick box). */
  render(width: number, theme: Theme, mark: (index: number) => string = () => ""): string[] {
    const lines: string[] = [];
    this.rows.forEach((row, i) => {
      const here = i === this.selected;
      const line = truncateToWidth(`${here ? "› " : "  "}${keyOf(i)} ${mark(i)}${row.label}`, width);
      lines.push(here ? theme.selected(line) : line);
      if (row.description) lines.push(theme.dim(truncateToWidth(`       ${row.description}`, width)));
    });
    return lines;
  }
}

/** The key that picks row `index`, as the row shows it: 1. to 9., then 0.; blank after. */
function keyOf(index: number): string {
  if (index < 9) return `${index + 1}.`;
  return index === 9 ? "0." : "  ";
}
