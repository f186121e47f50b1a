import type { KeepChoice, PermissionDecision, PermissionRequest } from "../../engine/interaction.ts";
import { APPROVAL_TOOL } from "../../engine/session-mcp.ts";
import { fittedDiff } from "../blocks/fitted-diff.ts";
import { hanging } from "../blocks/lines.ts";
import { plain } from "../blocks/plain.ts";
import { shownArguments } from "../../transcript/approval-args.ts";
import { type Component, matchesKey, truncateToWidth } from "../kit.ts";
import type { Theme } from "../theme.ts";
import { ChoiceList } from "./choices.ts";
import { LineInput } from "./line-input.ts";
import { counted } from "../../plural.ts";

/** Diff lines a change is fitted into (with less context) before its card scrolls. */
const DIFF_LINES = 30;
/** The fewest lines of what it approves a card shows, however small the screen. */
const MIN_BODY = 3;

/**
 * A row either decides at once or first asks for a line (the corrected command, the feedback);
 * an ask's decide gives null where the line cannot be taken (an emptied command): the input stays.
 */
type Option = { label: string; keeps?: (expires: KeepChoice["expires"]) => string } & ({ decide: () => PermissionDecision } | { ask: { label: string; prefill: string; decide: (text: string) => PermissionDecision | null } });

/**
 * An approval, inline: what will run or change first (the command and where, a tool's arguments,
 * the diffs), whole — in a window that scrolls (PgUp PgDn) and says what is above and below it
 * when it does not fit the screen —, why it asks, then the options numbered: once, for the session
 * where offered, the command corrected (run once instead), no, no with a word for the model, no
 * for the session where offered, and the rules kept beyond the session (yes or no, here or everywhere).
 * A digit picks one, arrows and Enter the highlighted one, Esc denies.
 */
export class PermissionCard implements Component {
  private readonly options: Option[];
  private readonly list: ChoiceList;
  private input: LineInput | null = null;
  focused = false;
  /** What it approves, drawn for a width (once per width), the first line shown, and how many fit. */
  private body: { width: number; lines: string[] } | null = null;
  private top = 0;
  private shown = Number.POSITIVE_INFINITY;
  /** How long a rule kept from this card lasts: Tab goes round. */
  private expires: KeepChoice["expires"] = "never";

  constructor(
    private readonly request: PermissionRequest,
    private readonly theme: Theme,
    private readonly answer: (decision: PermissionDecision) => void,
    /** The rows the card may take on the screen (what the composer and the status bar leave). */
    private readonly room: () => number = () => Number.POSITIVE_INFINITY,
  ) {
    this.options = permissionOptions(request, () => this.expires);
    this.list = new ChoiceList(this.options);
  }

  handleInput(data: string): void {
    if (matchesKey(data, "pageDown")) return this.scroll(Math.max(1, this.shown - 1));
    if (matchesKey(data, "pageUp")) return this.scroll(-Math.max(1, this.shown - 1));
    if (this.input) return this.input.handleInput(data);
    if (matchesKey(data, "escape")) return this.answer({ outcome: "deny" });
    if (matchesKey(data, "tab") && this.options.some((o) => o.keeps)) {
      this.expires = EXPIRIES[(EXPIRIES.indexOf(this.expires) + 1) % EXPIRIES.length] ?? "never";
      for (const option of this.options) if (option.keeps) option.label = option.keeps(this.expires);
      return;
    }
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
    // What the model wrote is drawn without its terminal control (plain), as in the transcript.
    const head = ["", t.warn(truncateToWidth(`┌ ${oneLine(this.request.title)}`, width))];
    const reason = hanging(plain(this.request.reason), width, "│ ", "│ ").map(t.dim);
    const answer = this.input
      ? this.input.render(width, t, this.focused)
      : [...this.list.render(width, t), t.dim(truncateToWidth(`  digit or ↑↓ Enter to answer${this.request.keep ? " · Tab: how long a kept rule lasts" : ""} · Esc to deny`, width))];
    const room = Math.max(MIN_BODY, this.room() - head.length - reason.length - answer.length);
    return [...head, ...this.window(this.bodyAt(width), room, width), ...reason, ...answer];
  }

  invalidate(): void {
    this.body = null;
  }

  /** What it approves, as many lines as fit in `room`: where it does not all fit, a line says what is above and below. */
  private window(body: readonly string[], room: number, width: number): string[] {
    if (body.length <= room) {
      this.top = 0;
      this.shown = body.length;
      return [...body];
    }
    // One line each for what is above and what is below, so the window keeps its height as it scrolls.
    this.shown = Math.max(1, room - 2);
    this.top = Math.max(0, Math.min(this.top, body.length - this.shown));
    const below = body.length - this.top - this.shown;
    const say = (text: string) => this.theme.dim(truncateToWidth(`│ ${text}`, width));
    return [
      this.top > 0 ? say(`↑ ${counted(this.top, "more line", "more lines")} above · PgUp`) : say(`lines 1–${this.shown} of ${body.length}`),
      ...body.slice(this.top, this.top + this.shown),
      below > 0 ? say(`↓ ${counted(below, "more line", "more lines")} below · PgDn`) : say(`the end (${counted(body.length, "line")})`),
    ];
  }

  private scroll(by: number): void {
    const length = this.body?.lines.length ?? 0;
    this.top = Math.max(0, Math.min(this.top + by, length - this.shown));
  }

  /** The command and where it runs, a tool's arguments, the model's description and the diffs: every line of them. */
  private bodyAt(width: number): string[] {
    if (this.body?.width === width) return this.body.lines;
    const t = this.theme;
    const r = this.request;
    const lines: string[] = [];
    if (r.command) {
      lines.push(...hanging(plain(r.command.line), width, "│ $ ", "│   ").map(t.bold));
      lines.push(...hanging(oneLine(r.command.cwd), width, "│   in ", "│      ").map(t.dim));
    }
    const args = shownArguments(r);
    if (args !== null) lines.push(...hanging(args, width, "│ ", "│ "));
    if (r.description) lines.push(...hanging(plain(r.description), width, "│ ", "│ ").map(t.dim));
    for (const diff of r.diffs ?? []) lines.push(...this.diffLines(diff.path, diff.oldText, diff.newText, width));
    this.body = { width, lines };
    return lines;
  }

  private diffLines(path: string, oldText: string | null, newText: string, width: number): string[] {
    const t = this.theme;
    const out = hanging(`${oneLine(path)}${oldText === null ? " (new file)" : ""}`, width, "│ ", "│ ").map(t.dim);
    for (const line of fittedDiff(oldText ?? "", newText, DIFF_LINES)) {
      const paint = line.startsWith("+") ? t.added : line.startsWith("-") ? t.removed : t.dim;
      // A long line wraps: a change is never cut at the card's edge.
      out.push(...hanging(line, width, "│ ", "│  ").map(paint));
    }
    return out;
  }
}

/**
 * The rows an approval offers. "Edit" only for a command of one line: the input is one line, and
 * a script of several would come back joined.
 */
function permissionOptions(request: PermissionRequest, expires: () => KeepChoice["expires"]): Option[] {
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
  const always = request.always;
  if (always) options.push({ label: `No, and deny ${oneLine(always)}${/for this session$/.test(always) ? "" : " for this session"}`, decide: () => ({ outcome: "deny", forSession: true }) });
  // Kept beyond the session: after the rows people know by their digits.
  if (request.keep) {
    const rules = request.keep.map(oneLine).join(", ");
    const keeping = (yes: boolean, scope: KeepChoice["scope"]): Option => {
      const keeps = (lasts: KeepChoice["expires"]) =>
        `${yes ? "Yes, and keep" : "No, and keep denying"} ${rules} ${scope === "project" ? "for this project" : "everywhere"} (${LASTS[lasts]})`;
      return { label: keeps("never"), keeps, decide: () => ({ outcome: yes ? "session" : "deny", keep: { scope, expires: expires() } }) };
    };
    options.push(keeping(true, "project"), keeping(true, "everywhere"), keeping(false, "project"), keeping(false, "everywhere"));
  }
  return options;
}

const EXPIRIES: readonly KeepChoice["expires"][] = ["never", "week", "day"];
const LASTS: Record<KeepChoice["expires"], string> = { never: "until revoked", week: "for a week", day: "for a day" };

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
