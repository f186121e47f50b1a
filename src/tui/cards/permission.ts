import type { PermissionDecision, PermissionRequest } from "../../engine/interaction.ts";
import { APPROVAL_TOOL } from "../../engine/session-mcp.ts";
import { fittedDiff } from "../blocks/fitted-diff.ts";
import { hanging } from "../blocks/lines.ts";
import { plain } from "../blocks/plain.ts";
import { type Component, matchesKey, truncateToWidth } from "../kit.ts";
import type { Theme } from "../theme.ts";
import { ChoiceList } from "./choices.ts";
import { LineInput } from "./line-input.ts";

/** Diff lines an approval shows before it says how many more there are. */
const DIFF_LINES = 30;

/**
 * A row either decides at once or first asks for a line (the corrected command, the feedback);
 * an ask's decide gives null where the line cannot be taken (an emptied command): the input stays.
 */
type Option = { label: string } & ({ decide: () => PermissionDecision } | { ask: { label: string; prefill: string; decide: (text: string) => PermissionDecision | null } });

/**
 * An approval, inline: what will run or change first (the command and where, the diffs), why it
 * asks, then the options numbered: once, for the session where offered, the command corrected
 * (run once instead), no, and no with a word for the model. A digit picks one, arrows and Enter
 * the highlighted one, Esc denies.
 */
export class PermissionCard implements Component {
  private readonly options: Option[];
  private readonly list: ChoiceList;
  private input: LineInput | null = null;
  focused = false;

  constructor(
    private readonly request: PermissionRequest,
    private readonly theme: Theme,
    private readonly answer: (decision: PermissionDecision) => void,
  ) {
    this.options = permissionOptions(request);
    this.list = new ChoiceList(this.options);
  }

  handleInput(data: string): void {
    if (this.input) return this.input.handleInput(data);
    if (matchesKey(data, "escape")) return this.answer({ outcome: "deny" });
    const key = this.list.key(data);
    if (key?.type !== "pick") return;
    const option = this.options[key.index];
    if (!option) return;
    if ("decide" in option) return this.answer(option.decide());
    const { label, prefill, decide } = option.ask;
    this.input = new LineInput(
      label,
      prefill,
      (text) => {
        const decision = decide(text);
        if (decision) this.answer(decision);
      },
      () => {
        this.input = null;
      },
    );
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const r = this.request;
    // What the model wrote is drawn without its terminal control (plain), as in the transcript.
    const lines = ["", t.warn(truncateToWidth(`┌ ${oneLine(r.title)}`, width))];
    if (r.command) {
      lines.push(...hanging(plain(r.command.line), width, "│ $ ", "│   ").map(t.bold));
      lines.push(t.dim(truncateToWidth(`│   in ${oneLine(r.command.cwd)}`, width)));
    }
    if (r.description) lines.push(...hanging(plain(r.description), width, "│ ", "│ ").map(t.dim));
    for (const diff of r.diffs ?? []) lines.push(...this.diffLines(diff.path, diff.oldText, diff.newText, width));
    lines.push(...hanging(plain(r.reason), width, "│ ", "│ ").map(t.dim));
    if (this.input) return [...lines, ...this.input.render(width, t, this.focused)];
    lines.push(...this.list.render(width, t));
    lines.push(t.dim(truncateToWidth("  digit or ↑↓ Enter to answer · Esc to deny", width)));
    return lines;
  }

  invalidate(): void {}

  private diffLines(path: string, oldText: string | null, newText: string, width: number): string[] {
    const t = this.theme;
    const all = fittedDiff(oldText ?? "", newText, DIFF_LINES);
    const out = [t.dim(truncateToWidth(`│ ${oneLine(path)}${oldText === null ? " (new file)" : ""}`, width))];
    for (const line of all.slice(0, DIFF_LINES)) {
      const paint = line.startsWith("+") ? t.added : line.startsWith("-") ? t.removed : t.dim;
      out.push(paint(truncateToWidth(`│ ${line}`, width)));
    }
    if (all.length > DIFF_LINES) out.push(t.dim(`│ … ${all.length - DIFF_LINES} more diff lines`));
    return out;
  }
}

/**
 * The rows an approval offers. "Edit" only for a command of one line: the input is one line, and
 * a script of several would come back joined.
 */
function permissionOptions(request: PermissionRequest): Option[] {
  // A project's MCP servers: a yes is kept for the file as it reads, and no model asked to be told.
  if (request.toolName === APPROVAL_TOOL) {
    return [
      { label: "Yes, start them (kept for this .mcp.json as it reads now)", decide: () => ({ outcome: "once" }) },
      { label: "No, not in this session", decide: () => ({ outcome: "deny" }) },
    ];
  }
  const line = request.command?.line;
  const options: Option[] = [{ label: "Yes, once", decide: () => ({ outcome: "once" }) }];
  if (request.always) options.push({ label: `Yes, and allow ${oneLine(request.always)}${/for this session$/.test(request.always) ? "" : " for this session"}`, decide: () => ({ outcome: "session" }) });
  if (line !== undefined && !line.includes("\n")) {
    options.push({
      label: "Edit the command, then run it once",
      ask: { label: "The command to run instead:", prefill: plain(line), decide: (text) => corrected(line, text) },
    });
  }
  options.push({ label: "No", decide: () => ({ outcome: "deny" }) });
  options.push({
    label: "No, and tell the model what to do instead",
    ask: { label: "What should the model do instead?", prefill: "", decide: (text) => (text.trim() ? { outcome: "deny", feedback: text.trim() } : { outcome: "deny" }) },
  });
  return options;
}

/**
 * The corrected line runs once; left as it was shown (the model's line without its terminal
 * control), it is a plain "once"; emptied, nothing yet.
 */
function corrected(original: string, text: string): PermissionDecision | null {
  const line = text.trim();
  if (!line) return null;
  return line !== plain(original).trim() ? { outcome: "once", command: line } : { outcome: "once" };
}

/** A short text of the model's (a title, a path) on one line, without terminal control. */
function oneLine(text: string): string {
  return plain(text).replace(/[\t\n]+/g, " ");
}
