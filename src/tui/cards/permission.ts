import type { PermissionDecision, PermissionRequest } from "../../engine/interaction.ts";
import { unifiedDiff } from "../../tools/diff.ts";
import { hanging } from "../blocks/lines.ts";
import { type Component, matchesKey, truncateToWidth } from "../kit.ts";
import type { Theme } from "../theme.ts";

/** Diff lines an approval shows before it says how many more there are. */
const DIFF_LINES = 30;

type Option = { label: string; decide: () => PermissionDecision };

/**
 * An approval, inline: what will run or change first (the command and where, the diffs), why it
 * asks, then the options numbered. A digit picks one, arrows and Enter the highlighted one, Esc denies.
 */
export class PermissionCard implements Component {
  private selected = 0;
  private readonly options: Option[];
  focused = false;

  constructor(
    private readonly request: PermissionRequest,
    private readonly theme: Theme,
    private readonly answer: (decision: PermissionDecision) => void,
  ) {
    this.options = [
      { label: "Yes, once", decide: () => ({ outcome: "once" }) },
      ...(request.always ? [{ label: `Yes, and allow ${request.always} for this session`, decide: () => ({ outcome: "session" as const }) }] : []),
      { label: "No", decide: () => ({ outcome: "deny" as const }) },
    ];
  }

  handleInput(data: string): void {
    const digit = Number(data);
    if (data.length === 1 && Number.isInteger(digit) && digit >= 1 && digit <= this.options.length) {
      this.answer(this.options[digit - 1]?.decide() ?? { outcome: "deny" });
      return;
    }
    if (matchesKey(data, "escape")) return this.answer({ outcome: "deny" });
    if (matchesKey(data, "up")) this.selected = (this.selected + this.options.length - 1) % this.options.length;
    else if (matchesKey(data, "down")) this.selected = (this.selected + 1) % this.options.length;
    else if (matchesKey(data, "enter")) this.answer(this.options[this.selected]?.decide() ?? { outcome: "deny" });
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const r = this.request;
    const lines = ["", t.warn(truncateToWidth(`┌ ${r.title}`, width))];
    if (r.command) {
      lines.push(...hanging(r.command.line, width, "│ $ ", "│   ").map(t.bold));
      lines.push(t.dim(truncateToWidth(`│   in ${r.command.cwd}`, width)));
    }
    if (r.description) lines.push(...hanging(r.description, width, "│ ", "│ ").map(t.dim));
    for (const diff of r.diffs ?? []) lines.push(...this.diffLines(diff.path, diff.oldText, diff.newText, width));
    lines.push(...hanging(r.reason, width, "│ ", "│ ").map(t.dim));
    this.options.forEach((option, i) => {
      const line = truncateToWidth(`${i === this.selected ? "› " : "  "}${i + 1}. ${option.label}`, width);
      lines.push(i === this.selected ? t.selected(line) : line);
    });
    lines.push(t.dim(truncateToWidth("  digit or ↑↓ Enter to answer · Esc to deny", width)));
    return lines;
  }

  invalidate(): void {}

  private diffLines(path: string, oldText: string | null, newText: string, width: number): string[] {
    const t = this.theme;
    const text = unifiedDiff(oldText ?? "", newText, { maxLines: 100_000 });
    const all = text ? text.split("\n") : [];
    const out = [t.dim(truncateToWidth(`│ ${path}${oldText === null ? " (new file)" : ""}`, width))];
    for (const line of all.slice(0, DIFF_LINES)) {
      const paint = line.startsWith("+") ? t.added : line.startsWith("-") ? t.removed : t.dim;
      out.push(paint(truncateToWidth(`│ ${line}`, width)));
    }
    if (all.length > DIFF_LINES) out.push(t.dim(`│ … ${all.length - DIFF_LINES} more diff lines`));
    return out;
  }
}
