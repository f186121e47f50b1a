import { visibleLine } from "../../controls.ts";
import { loadCommands } from "../../project/commands.ts";
import type { CommandHost, TuiCommand } from "../command-host.ts";
import { type Component, matchesKey, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "../kit.ts";
import type { Theme } from "../theme.ts";
import { say } from "./say.ts";

/** The keys, a short line each: the panel's first lines. */
const KEYS = [
  "Enter sends · Shift+Enter, Alt+Enter or \\ Enter: a new line · ↑↓ earlier prompts · Ctrl+R searches them · while a turn runs, Enter steers it",
  "Esc or Ctrl-C interrupts · Esc Esc (empty) rewinds · Ctrl-C clears, twice quits · Ctrl-D quits · Shift+Tab mode · Ctrl-Z suspends",
  "Ctrl+G edits the draft in $VISUAL or $EDITOR · /vim vim keys · !command runs it as you, its output goes with your next prompt",
];

/** Two columns of commands from this width on. */
const TWO_COLUMNS = 100;
/** The widest a command's name and argument are shown (a longer argument is cut: /help NAME has it whole). */
const NAME_WIDTH = 18;

type Row = { name: string; description: string };

/**
 * /help: the keys and every command in one panel that fits a 40-row screen (two columns of
 * commands, each description cut to its column), closed with Esc, Enter or q. `/help NAME` says
 * one command's whole description in the transcript.
 */
export function help(app: CommandHost, args: string, list: readonly TuiCommand[]): void {
  const { root } = app.runtime.session;
  const shared = loadCommands({ root, configDir: app.runtime.ctx.paths.configDir, protectedPaths: app.runtime.engine.protectedPaths }).all;
  // Custom commands and skills are the project's text: drawn with their control characters shown, never obeyed.
  const rows: Row[] = [...list.map((c) => ({ name: usage(c), description: c.description })), ...shared.map((c) => ({ name: usage(c), description: visibleLine(`${c.description}${c.kind === "builtin" ? "" : ` (${c.kind})`}`) }))];
  if (args) {
    const name = args.replace(/^\//, "");
    const found = [...list, ...shared].find((c) => c.name === name || ("aliases" in c && c.aliases?.includes(name)));
    if (!found) return say(app, `there is no command /${name} (/help lists them)`, "warn");
    return say(app, visibleLine(`${usage(found)} — ${found.description}`));
  }
  let close = () => {};
  close = app.present(new HelpPanel(app.theme, rows, () => close()));
}

function usage(c: { name: string; hint?: string }): string {
  return visibleLine(`/${c.name}${c.hint ? ` ${c.hint}` : ""}`);
}

export class HelpPanel implements Component {
  focused = false;

  constructor(
    private readonly theme: Theme,
    private readonly rows: readonly Row[],
    private readonly close: () => void,
  ) {}

  handleInput(data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "enter") || data === "q") this.close();
  }

  render(width: number): readonly string[] {
    const t = this.theme;
    const out = ["", t.bold("Keys")];
    for (const line of KEYS) out.push(...wrapTextWithAnsi(line, Math.max(10, width - 2)).map((l) => `  ${t.dim(l)}`));
    out.push(t.bold("Commands"));
    const columns = width >= TWO_COLUMNS ? 2 : 1;
    const columnWidth = Math.floor((width - 2) / columns);
    const nameWidth = Math.min(Math.max(...this.rows.map((r) => visibleWidth(r.name))), NAME_WIDTH, Math.floor(columnWidth / 2)) + 1;
    const cell = (row: Row | undefined) => {
      if (!row) return "";
      const name = truncateToWidth(row.name, nameWidth - 1);
      const text = `${t.accent(name)}${" ".repeat(Math.max(1, nameWidth - visibleWidth(name)))}${t.dim(row.description)}`;
      return truncateToWidth(text, columnWidth - 1);
    };
    const height = Math.ceil(this.rows.length / columns);
    for (let i = 0; i < height; i++) {
      const left = cell(this.rows[i]);
      const right = columns === 2 ? cell(this.rows[i + height]) : "";
      out.push(`  ${left}${right ? " ".repeat(Math.max(1, columnWidth - visibleWidth(left))) + right : ""}`);
    }
    out.push(t.dim(truncateToWidth("  Esc closes · /help NAME says one command whole", width)));
    return out.map((line) => (visibleWidth(line) > width ? truncateToWidth(line, width) : line));
  }

  invalidate(): void {}
}
