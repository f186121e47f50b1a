import { errorMessage } from "../errors.ts";
import { type Component, CURSOR_MARKER, type Focusable, Input, matchesKey, renderFakeCursor, truncateToWidth, wrapTextWithAnsi } from "./kit.ts";
import { oneLinePaste } from "./one-line-paste.ts";
import type { Theme } from "./theme.ts";

/** One line of a form. secret: drawn as dots (a token), never as typed. */
export type FieldSpec = { label: string; placeholder?: string; secret?: boolean; value?: string };

/**
 * What a form's submit says: null when it is done (the form's owner moves on), else the one line
 * to show under it, the form staying as it was.
 */
export type SubmitOutcome = string | null;

export type FormHandlers = {
  /**
   * The values, in the fields' order, trimmed. A throw is shown as its one-line message. signal:
   * aborted when the person left the form (Esc) before the submit ended; what it found is then
   * not acted on.
   */
  submit(values: string[], signal: AbortSignal): Promise<SubmitOutcome>;
  /** Esc (and Ctrl-C): back, or closed. */
  cancel(): void;
  /** Something changed that the screen should draw (an answer came back). */
  changed(): void;
};

/**
 * A few one-line fields under a title: Enter goes to the next field and, on the last, submits;
 * ↑↓ (or Tab) move between fields; Esc goes back. While the submit runs the keys wait, but Esc.
 */
export class Form implements Component, Focusable {
  focused = false;
  private readonly inputs: Input[];
  private at = 0;
  private message: string | null = null;
  private busy = false;
  /** Counts submits, so that the answer to one left by Esc is dropped. */
  private round = 0;
  /** The running submit's, aborted by Esc. */
  private leaving: AbortController | null = null;

  constructor(
    private readonly title: string,
    private readonly notes: readonly string[],
    private readonly fields: readonly FieldSpec[],
    private readonly theme: Theme,
    private readonly handlers: FormHandlers,
  ) {
    this.inputs = fields.map((field) => {
      const input = new Input({ prompt: `${field.label}: `, ...(field.placeholder ? { placeholder: field.placeholder, placeholderStyle: theme.dim } : {}) });
      if (field.value) input.setValue(field.value);
      return input;
    });
  }

  handleInput(data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.round += 1;
      this.busy = false;
      this.leaving?.abort();
      this.leaving = null;
      this.handlers.cancel();
      return;
    }
    if (this.busy) return;
    if (matchesKey(data, "enter")) {
      if (this.at < this.inputs.length - 1) this.at += 1;
      else void this.submit();
      return;
    }
    if (matchesKey(data, "down") || matchesKey(data, "tab")) {
      this.at = Math.min(this.inputs.length - 1, this.at + 1);
      return;
    }
    if (matchesKey(data, "up") || matchesKey(data, "shift+tab")) {
      this.at = Math.max(0, this.at - 1);
      return;
    }
    this.inputs[this.at]?.handleInput(oneLinePaste(data));
  }

  private async submit(): Promise<void> {
    const round = ++this.round;
    const leaving = new AbortController();
    this.leaving = leaving;
    this.busy = true;
    this.message = null;
    this.handlers.changed();
    let outcome: SubmitOutcome;
    try {
      outcome = await this.handlers.submit(
        this.inputs.map((input) => input.getValue().trim()),
        leaving.signal,
      );
    } catch (error) {
      outcome = errorMessage(error);
    }
    if (round !== this.round) return;
    this.busy = false;
    this.message = outcome === null ? null : oneLine(outcome);
    this.handlers.changed();
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const lines = ["", truncateToWidth(t.bold(this.title), width), ...this.notes.map((note) => truncateToWidth(t.dim(note), width))];
    this.inputs.forEach((input, i) => {
      const here = i === this.at;
      input.focused = here && this.focused && !this.busy;
      const mark = here ? t.selected("› ") : "  ";
      const field = this.fields[i];
      const drawn = field?.secret ? this.masked(field.label, input, here) : (input.render(Math.max(1, width - 2))[0] ?? "");
      lines.push(truncateToWidth(mark + drawn, width));
    });
    if (this.busy) lines.push(t.dim("  checking…"));
    else if (this.message) lines.push(...wrapTextWithAnsi(this.message, Math.max(10, width - 2)).map((line) => `  ${t.error(line)}`));
    lines.push(t.dim("  Enter: next, or done on the last line · ↑↓ move · Esc: back"));
    return lines;
  }

  private masked(label: string, input: Input, here: boolean): string {
    const dots = "•".repeat(input.getValue().length);
    const cursor = here && this.focused && !this.busy ? CURSOR_MARKER + renderFakeCursor(" ") : "";
    return `${label}: ${dots}${cursor}`;
  }

  invalidate(): void {
    for (const input of this.inputs) input.invalidate();
  }
}

/** An error's first line, without a stack: what the form shows. */
function oneLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? "";
}
