import { Input, truncateToWidth } from "../kit.ts";
import { oneLinePaste } from "../one-line-paste.ts";
import type { Theme } from "../theme.ts";

/**
 * A one-line answer inside a card (feedback, a corrected command, an answer in the person's own
 * words): a label above, the text below. Enter gives the text, Esc goes back to the card's list.
 */
export class LineInput {
  private readonly input = new Input({ prompt: "│ › " });

  constructor(
    private readonly label: string,
    prefill: string,
    onSubmit: (text: string) => void,
    onCancel: () => void,
  ) {
    this.input.onSubmit = onSubmit;
    this.input.onEscape = onCancel;
    if (prefill) {
      this.input.setValue(prefill);
      // setValue leaves the cursor at the start; the person edits from the end of the line.
      this.input.handleInput("\x05");
    }
  }

  handleInput(data: string): void {
    this.input.handleInput(oneLinePaste(data));
  }

  render(width: number, theme: Theme, focused: boolean): string[] {
    this.input.focused = focused;
    return [
      theme.bold(truncateToWidth(`│ ${this.label}`, width)),
      ...this.input.render(width),
      theme.dim(truncateToWidth("  Enter to send · Esc to go back", width)),
    ];
  }
}
