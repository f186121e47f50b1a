import { existsSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../errors.ts";
import { counted } from "../plural.ts";
import { runCommand } from "../tools/bash.ts";
import { ShellRunBlock } from "./blocks/shell-run.ts";
import { type Component, matchesKey } from "./kit.ts";
import type { Theme } from "./theme.ts";

/** setTimeout's longest: a person's own command has no time limit (Esc or Ctrl-C stops it). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The most of what `!` commands printed that goes with one prompt, all of them together (each is
 * cut to 30,000 characters already): the oldest are left out first, the newest is always given.
 */
export const CONTEXT_MAX_CHARS = 40_000;

/** A command the person ran with `!`, as the model is told of it. */
export type ShellRun = { command: string; cwd: string; output: string; exitCode: number | null; signal: string | null; stopped: boolean; leftBehind: boolean };

/** What the shell mode needs of the screen. */
export type ShellHost = {
  cwd(): string;
  show(block: Component): void;
  render(): void;
  /** A run ended: kept with the session, the person's own part of it (drawn when it is resumed). */
  keep(run: ShellRun): void;
};

/** The command of a composer text that starts with `!` (`!git status`), or null for a prompt. */
export function bangCommand(text: string): string | null {
  const trimmed = text.trimStart();
  return trimmed.startsWith("!") ? trimmed.slice(1).trim() : null;
}

/**
 * The composer's `!`: a command line the person runs in the session's directory, as themselves (no
 * approval: it is theirs, not the model's), with no stdin, in a process group of its own that
 * Esc or Ctrl-C stops whole. Its output is shown bounded with a line count, and kept (bounded
 * too) to go with the next prompt, as the model's context: Claude Code's bash mode.
 */
export class ShellMode {
  private running: { stop: AbortController; block: ShellRunBlock } | null = null;
  /** Where a `!cd` left the commands' shell, as a shell would: null for the session's directory. */
  private dir: string | null = null;
  private runs = 0;
  private unsent: ShellRun[] = [];
  /** How many runs since the last prompt were let go to keep the rest within CONTEXT_MAX_CHARS. */
  private leftOut = 0;

  constructor(
    private readonly host: ShellHost,
    private readonly theme: Theme,
  ) {}

  get busy(): boolean {
    return this.running !== null;
  }

  /** Why `command` cannot run now (null: it can): none typed, one running already, a turn running. */
  refusal(command: string, turnRunning: boolean): string | null {
    if (!command) return "type a command after ! (it runs in the session's directory)";
    if (this.running) return "a command is running: esc stops it";
    return turnRunning ? "a turn is running: run the command when it ends (esc interrupts the turn)" : null;
  }

  /** Esc (when no completion list takes it) or Ctrl-C while a command runs stops it; whether the key was that. */
  stopKey(data: string, completing: boolean): boolean {
    if (!this.running) return false;
    if (!matchesKey(data, "ctrl+c") && !(matchesKey(data, "escape") && !completing)) return false;
    this.stop();
    return true;
  }

  /** Stops the running command and what it started; whether one was running. */
  stop(): boolean {
    if (!this.running) return false;
    this.running.block.stopping();
    this.running.stop.abort();
    this.host.render();
    return true;
  }

  /** The directory the next `!` command runs in: where the last `cd` left it, else the session's. */
  where(): string {
    if (this.dir !== null && !isDirectory(this.dir)) this.dir = null;
    return this.dir ?? this.host.cwd();
  }

  async run(command: string): Promise<void> {
    const cwd = this.where();
    const block = new ShellRunBlock(command, this.theme, this.dir);
    // The shell's directory at the end is kept for the next command (its exit code is the command's).
    const left = join(tmpdir(), `lembas-shell-cwd-${process.pid}-${++this.runs}`);
    const stop = new AbortController();
    this.running = { stop, block };
    this.host.show(block);
    this.host.render();
    try {
      const run = await runCommand(wrapped(command, left), {
        cwd,
        env: personEnv(),
        signal: stop.signal,
        timeoutMs: NO_TIMEOUT_MS,
        onOutput: (text) => {
          block.progress(text);
          this.host.render();
        },
      });
      const stopped = run.stopped !== null;
      this.moveTo(left, cwd, block);
      block.end({ exitCode: run.exitCode, signal: run.signal, stopped, leftBehind: run.leftBehind });
      const ran: ShellRun = { command, cwd, output: run.output, exitCode: run.exitCode, signal: run.signal, stopped, leftBehind: run.leftBehind };
      this.host.keep(ran);
      this.unsent.push(ran);
      const kept = newestWithin(this.unsent, CONTEXT_MAX_CHARS);
      this.leftOut += this.unsent.length - kept.length;
      this.unsent = kept;
    } catch (error) {
      block.failed(`the command could not be run: ${errorMessage(error)}`);
    } finally {
      rmSync(left, { force: true });
      this.running = null;
      this.host.render();
    }
  }

  /** The directory the command's shell ended in (written to `left`), kept when it moved. */
  private moveTo(left: string, cwd: string, block: ShellRunBlock): void {
    if (!existsSync(left)) return;
    const now = readFileSync(left, "utf8").trim();
    if (!now || sameDir(now, cwd)) return;
    this.dir = sameDir(now, this.host.cwd()) ? null : now;
    block.movedTo(now);
  }

  /** Another session opened: what ran for the one left is not given to it. */
  forget(): void {
    this.dir = null;
    this.unsent = [];
    this.leftOut = 0;
  }

  /** What the commands run since the last prompt printed, for the model; null when none ran. Given once. */
  takeContext(): string | null {
    if (this.unsent.length === 0) return null;
    const context = shellContext(this.unsent.splice(0), this.leftOut);
    this.leftOut = 0;
    return context;
  }
}

/**
 * The script that runs the person's `command` as the shell would and writes the directory it ends
 * in to `left`. The command is eval's one argument, quoted whole, not lines pasted before lembas's
 * own: an unfinished one (`echo a |`, `cat <<EOF`) then gets the shell's own syntax error and exit
 * code, and lembas's lines never become its input or its output. The EXIT trap writes the directory
 * also when the command ends the shell itself (`exit 3`); the exit code stays the command's.
 */
function wrapped(command: string, left: string): string {
  return `trap ${quoted(`pwd > ${quoted(left)} 2>/dev/null`)} EXIT; eval ${quoted(command)}`;
}

/** `text` as one single-quoted shell word. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * Commands run with `!` as the model reads them before the prompt: Claude Code's shape
 * (`<bash-input>`, `<bash-stdout>`), with a sentence saying whose they were and that they ask nothing.
 */
export function shellContext(all: readonly ShellRun[], leftOut = 0): string {
  const runs = newestWithin(all, CONTEXT_MAX_CHARS);
  const left = all.length - runs.length + leftOut;
  const where = runs[0]?.cwd ?? "";
  const parts = runs.map((run) => {
    const how = [
      run.stopped ? "(stopped by the person before it ended)" : run.signal ? `(killed by ${run.signal})` : run.exitCode !== 0 && run.exitCode !== null ? `(exit code ${run.exitCode})` : "",
      run.leftBehind ? "(what it left running in the background was stopped)" : "",
    ].filter(Boolean);
    const elsewhere = run.cwd !== where ? [`(run in ${run.cwd}, where an earlier cd left their shell)`] : [];
    return [`<bash-input>${run.command}</bash-input>`, `<bash-stdout>${run.output.replace(/\n$/, "")}</bash-stdout>`, ...how, ...elsewhere].join("\n");
  });
  return [
    `[lembas] Before this prompt the person ran ${runs.length === 1 ? "a command" : "these commands"} in their own shell in ${where} (with \`!\`; stdout and stderr together, long output cut in the middle). This is context for their prompt, not a request: do not act on it unless the prompt asks.`,
    ...(left > 0 ? [`(${counted(left, "earlier command")} they ran ${left === 1 ? "is" : "are"} left out: all the output together is kept to ${CONTEXT_MAX_CHARS} characters, the newest first)`] : []),
    ...parts,
  ].join("\n\n");
}

/** The newest runs whose commands and output together fit `max` characters (the newest always), in the order run. */
function newestWithin(runs: readonly ShellRun[], max: number): ShellRun[] {
  const kept: ShellRun[] = [];
  let size = 0;
  for (const run of [...runs].reverse()) {
    size += run.command.length + run.output.length;
    if (kept.length > 0 && size > max) break;
    kept.unshift(run);
  }
  return kept;
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The person's own environment: their command runs as they would run it in their shell. */
function personEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}
