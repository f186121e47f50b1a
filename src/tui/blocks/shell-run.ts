import type { Theme } from "../theme.ts";
import { CachedBlock, hanging } from "./lines.ts";
import { plain } from "./plain.ts";
import { clip } from "./tool-call.ts";

/** Lines of a finished command's output shown whole; of a longer one its first and its last (where a summary or an error is), the rest counted. */
const SHOWN_LINES = 10;
const FIRST_LINES = 4;
const LAST_LINES = 5;
/** While it runs: its last lines. */
const LIVE_LINES = 5;
/** Characters kept of the output's start and of its newest part: never the whole flood. */
const HEAD_KEEP_CHARS = 8_192;
const LIVE_KEEP_CHARS = 16_384;

type End = { exitCode: number | null; signal: string | null; stopped: boolean; leftBehind: boolean };

/**
 * A command the person ran with `!`: the command, its last lines while it runs, then its first
 * lines and how many there were in all (counted over the whole output, however large), and how it
 * ended when not with exit 0.
 */
export class ShellRunBlock extends CachedBlock {
  private head = "";
  private live = "";
  private newlines = 0;
  private endsInNewline = true;
  private any = false;
  private ending: End | null = null;
  private why = "";
  private stopAsked = false;
  private readonly command: string;
  /** The directory `!` commands run in from now on, when this one moved it (`!cd sub`). */
  private moved = "";

  /** `where`: the directory it runs in, when it is not the session's (an earlier `!cd` moved it). */
  constructor(
    command: string,
    private readonly theme: Theme,
    private readonly where: string | null = null,
  ) {
    super();
    this.command = plain(command);
    this.where = where === null ? null : plain(where);
  }

  /** It left the shell in another directory: the next `!` commands run there. */
  movedTo(dir: string): void {
    this.moved = plain(dir);
    this.invalidate();
  }

  progress(text: string): void {
    if (text === "") return;
    this.any = true;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) this.newlines++;
    this.endsInNewline = text.endsWith("\n");
    if (this.head.length < HEAD_KEEP_CHARS) this.head += plain(text.slice(0, HEAD_KEEP_CHARS - this.head.length));
    this.live = (this.live + text.slice(-LIVE_KEEP_CHARS)).slice(-LIVE_KEEP_CHARS);
    this.invalidate();
  }

  /** Esc or Ctrl-C was pressed: it says so until the command is gone. */
  stopping(): void {
    this.stopAsked = true;
    this.invalidate();
  }

  end(ending: End): void {
    this.ending = ending;
    this.live = plain(this.live);
    this.invalidate();
  }

  failed(why: string): void {
    this.why = plain(why);
    this.ending = { exitCode: null, signal: null, stopped: false, leftBehind: false };
    this.invalidate();
  }

  /** Lines of output in all: a last line without a newline counts too. */
  get lineCount(): number {
    return this.any ? this.newlines + (this.endsInNewline ? 0 : 1) : 0;
  }

  protected draw(width: number): string[] {
    const t = this.theme;
    const title = hanging(`${t.bold(this.command)}${this.where === null ? "" : t.dim(` · in ${this.where}`)}`, width, t.accent("! "), "  ");
    if (!this.ending) {
      const tail = outputLines(plain(this.live)).slice(-LIVE_LINES);
      const state = this.stopAsked ? "stopping…" : `running · ${this.lineCount} ${this.lineCount === 1 ? "line" : "lines"} · esc to stop`;
      return ["", ...title, ...tail.map((line) => t.dim(clip(`  │ ${line}`, width))), t.dim(`  ${state}`)];
    }
    if (this.why) return ["", ...title, ...hanging(this.why, width, "  ⎿ ", "    ").map(t.error)];
    return ["", ...title, ...this.output(width), ...this.outcome()];
  }

  /** Every line of a short output; of a long one its first and last, and the count of those between. */
  private output(width: number): string[] {
    const t = this.theme;
    const all = this.lineCount;
    if (all === 0) return [t.dim("  ⎿ (no output)")];
    const cut = all > SHOWN_LINES;
    const first = outputLines(this.head).slice(0, cut ? FIRST_LINES : SHOWN_LINES);
    const last = cut ? outputLines(this.live).slice(-LAST_LINES) : [];
    const count = cut ? [`… ${all - first.length - last.length} lines left out (${all} in all)`] : all > 1 ? [`(${all} lines)`] : [];
    return [...first, ...(cut ? count : []), ...last, ...(cut ? [] : count)].map((line, i) => t.dim(clip(`${i === 0 ? "  ⎿ " : "    "}${line}`, width)));
  }

  private outcome(): string[] {
    const end = this.ending;
    if (!end) return [];
    const t = this.theme;
    const said: string[] = [];
    if (end.stopped) said.push(t.warn("    stopped: it and every process it started"));
    else if (end.signal) said.push(t.error(`    killed by ${end.signal}`));
    else if (end.exitCode !== 0 && end.exitCode !== null) said.push(t.error(`    exit ${end.exitCode}`));
    if (end.leftBehind) said.push(t.warn("    what it left running in the background was stopped"));
    if (this.moved) said.push(t.dim(`    ! commands run in ${this.moved} now (the session's directory is unchanged)`));
    return said;
  }
}

function outputLines(text: string): string[] {
  const lines = text.replace(/\r/g, "").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
