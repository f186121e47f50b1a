import type { Answer, Question, QuestionOutcome } from "../../tools/tool.ts";
import { hanging } from "../blocks/lines.ts";
import { plain } from "../blocks/plain.ts";
import { type Component, matchesKey, truncateToWidth } from "../kit.ts";
import type { Theme } from "../theme.ts";
import { type Choice, ChoiceList } from "./choices.ts";
import { LineInput } from "./line-input.ts";

/** The rows after a question's own options, in this order. */
const EXTRAS = ["Type your own answer", "Ask the model something first", "Skip this question"] as const;

/**
 * ask_user, inline: the questions one after another, each with its options (the recommended one
 * first, marked), then an answer of the person's own, a question back, or skip. Single choice: a
 * digit or Enter answers. Multiple: a digit or Space ticks, Enter answers with the ticked ones (or
 * the highlighted one if none is). Esc dismisses the whole card.
 */
export class QuestionCard implements Component {
  private at = 0;
  private readonly answers: Answer[] = [];
  private list: ChoiceList;
  private ticked = new Set<number>();
  private input: LineInput | null = null;
  focused = false;

  constructor(
    private readonly questions: readonly Question[],
    private readonly why: string | undefined,
    private readonly theme: Theme,
    private readonly answer: (outcome: QuestionOutcome) => void,
  ) {
    this.list = this.listFor(0);
  }

  private get question(): Question | undefined {
    return this.questions[this.at];
  }

  handleInput(data: string): void {
    if (this.input) return this.input.handleInput(data);
    const q = this.question;
    if (!q) return;
    if (matchesKey(data, "escape")) return this.answer({ outcome: "dismissed" });
    const count = q.options.length;
    if (q.multiple && matchesKey(data, "space") && this.list.highlighted < count) return this.toggle(this.list.highlighted);
    const key = this.list.key(data);
    if (key?.type !== "pick") return;
    if (key.index < count) {
      if (!q.multiple) return this.next({ kind: "options", labels: [q.options[key.index]?.label ?? ""] });
      if (key.by === "digit") return this.toggle(key.index);
      const picked = this.ticked.size > 0 ? [...this.ticked].sort((a, b) => a - b) : [key.index];
      return this.next({ kind: "options", labels: picked.map((i) => q.options[i]?.label ?? "") });
    }
    const extra = EXTRAS[key.index - count];
    if (extra === "Skip this question") return this.next({ kind: "skipped" });
    const kind = extra === "Type your own answer" ? "custom" : "back";
    this.input = new LineInput(
      kind === "custom" ? "Your answer:" : "Your question for the model:",
      "",
      (text) => {
        if (text.trim()) this.next({ kind, text: text.trim() });
      },
      () => {
        this.input = null;
      },
    );
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const q = this.question;
    if (!q) return [];
    const of = this.questions.length > 1 ? `Question ${this.at + 1} of ${this.questions.length} · ` : "";
    // What the model wrote is drawn without its terminal control (plain), as in the transcript.
    const lines = ["", t.warn(truncateToWidth(`┌ ${of}${oneLine(q.header)}`, width))];
    if (this.why && this.at === 0) lines.push(...hanging(plain(this.why), width, "│ ", "│ ").map(t.dim));
    this.answers.forEach((a, i) => lines.push(t.dim(truncateToWidth(`│ ${oneLine(this.questions[i]?.header ?? "")} → ${oneLine(answerText(a))}`, width))));
    lines.push(...hanging(plain(q.question), width, "│ ", "│ ").map(t.bold));
    if (this.input) return [...lines, ...this.input.render(width, t, this.focused)];
    const count = q.options.length;
    lines.push(...this.list.render(width, t, (i) => (q.multiple && i < count ? (this.ticked.has(i) ? "[x] " : "[ ] ") : "")));
    const how = q.multiple ? "digit or Space to tick · Enter to answer" : "digit or ↑↓ Enter to answer";
    lines.push(t.dim(truncateToWidth(`  ${how} · Esc to dismiss`, width)));
    return lines;
  }

  invalidate(): void {}

  private toggle(index: number): void {
    if (!this.ticked.delete(index)) this.ticked.add(index);
  }

  /** Takes the answer to the question shown; after the last one the card is answered. */
  private next(answer: Answer): void {
    this.answers.push(answer);
    this.input = null;
    this.at += 1;
    if (this.at >= this.questions.length) return this.answer({ outcome: "answered", answers: this.answers });
    this.list = this.listFor(this.at);
    this.ticked = new Set();
  }

  private listFor(index: number): ChoiceList {
    const options = this.questions[index]?.options ?? [];
    const rows: Choice[] = options.map((o) => ({
      label: o.recommended ? `${oneLine(o.label)} (recommended)` : oneLine(o.label),
      ...(o.description ? { description: oneLine(o.description) } : {}),
    }));
    return new ChoiceList([...rows, ...EXTRAS.map((label) => ({ label }))]);
  }
}

function answerText(answer: Answer): string {
  if (answer.kind === "options") return answer.labels.join(", ");
  if (answer.kind === "custom") return answer.text;
  if (answer.kind === "back") return `asked back: ${answer.text}`;
  return "skipped";
}

/** A text of the model's on one line, without terminal control. */
function oneLine(text: string): string {
  return plain(text).replace(/[\t\n]+/g, " ");
}
