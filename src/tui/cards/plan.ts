import type { PlanOutcome } from "../../tools/tool.ts";
import { plain } from "../blocks/plain.ts";
import { highlight } from "../highlight.ts";
import { type Component, Markdown, matchesKey, truncateToWidth } from "../kit.ts";
import { markdownTheme, type Theme } from "../theme.ts";
import { ChoiceList } from "./choices.ts";
import { LineInput } from "./line-input.ts";

/** Lines of the plan the card shows at a time; the rest scroll (PgUp/PgDn). */
const PLAN_LINES = 16;

const OPTIONS = [
  { label: "Approve, and carry it out in edit mode", outcome: { outcome: "approve", mode: "edit" } },
  { label: "Approve, and carry it out in manual mode (ask before each change)", outcome: { outcome: "approve", mode: "manual" } },
  { label: "Revise: tell the model what to change", outcome: null },
] as const satisfies readonly { label: string; outcome: PlanOutcome | null }[];

/**
 * plan_submit, inline: the plan's markdown in a window of its own that scrolls (a long plan never
 * floods the screen), then approve into edit or manual mode, or revise with feedback. Esc dismisses.
 */
export class PlanCard implements Component {
  private readonly list = new ChoiceList(OPTIONS);
  private readonly markdown: Markdown;
  private input: LineInput | null = null;
  private top = 0;
  private width = -1;
  private planLines: readonly string[] = [];
  focused = false;

  constructor(
    private readonly path: string,
    text: string,
    private readonly theme: Theme,
    private readonly answer: (outcome: PlanOutcome) => void,
  ) {
    // The model's markdown without its terminal control (plain), as in the transcript.
    this.markdown = new Markdown(plain(text), 0, 0, markdownTheme(theme, (code, lang) => highlight(code, lang, theme)), undefined, { preserveOrderedListMarkers: true });
  }

  handleInput(data: string): void {
    if (matchesKey(data, "pageDown")) return this.scroll(PLAN_LINES - 1);
    if (matchesKey(data, "pageUp")) return this.scroll(-(PLAN_LINES - 1));
    if (this.input) return this.input.handleInput(data);
    if (matchesKey(data, "escape")) return this.answer({ outcome: "dismissed" });
    const key = this.list.key(data);
    if (key?.type !== "pick") return;
    const chosen = OPTIONS[key.index]?.outcome;
    if (chosen) return this.answer(chosen);
    this.input = new LineInput(
      "What should change in the plan?",
      "",
      (text) => {
        if (text.trim()) this.answer({ outcome: "revise", feedback: text.trim() });
      },
      () => {
        this.input = null;
      },
    );
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const plan = this.linesAt(width);
    const lines = ["", t.warn(truncateToWidth(`┌ Plan · ${plain(this.path).replace(/\s+/g, " ")}`, width))];
    for (const line of plan.slice(this.top, this.top + PLAN_LINES)) lines.push(truncateToWidth(`│ ${line}`, width));
    if (plan.length > PLAN_LINES) {
      const last = Math.min(plan.length, this.top + PLAN_LINES);
      lines.push(t.dim(truncateToWidth(`│ … lines ${this.top + 1}–${last} of ${plan.length} · PgUp PgDn to scroll`, width)));
    }
    if (this.input) return [...lines, ...this.input.render(width, t, this.focused)];
    lines.push(...this.list.render(width, t));
    lines.push(t.dim(truncateToWidth("  digit or ↑↓ Enter to answer · Esc to dismiss", width)));
    return lines;
  }

  invalidate(): void {
    this.width = -1;
    this.markdown.invalidate();
  }

  /** The plan drawn for this width, once per width. */
  private linesAt(width: number): readonly string[] {
    if (width !== this.width) {
      this.planLines = this.markdown.render(Math.max(1, width - 2));
      this.width = width;
      this.scroll(0);
    }
    return this.planLines;
  }

  private scroll(by: number): void {
    this.top = Math.max(0, Math.min(this.top + by, this.planLines.length - PLAN_LINES));
  }
}
