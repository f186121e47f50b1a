import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { detectShell } from "../../src/terminal/shell.ts";
import { openTerminal, type Terminal } from "../../src/terminal/terminal.ts";

const temps: string[] = [];
const open = new Set<Terminal>();

/** A temp dir holding `files` (paths relative to it), removed by cleanup(). */
export function makeHome(files: Record<string, string> = {}): string {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "term-test-")));
  temps.push(home);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return home;
}

/** A terminal's output as text, with helpers to wait on it and read its marks. */
export type Screen = {
  terminal: Terminal;
  text(): string;
  /** Types `text` (no newline added). */
  type(text: string): void;
  /** Types a line and waits for the next prompt (the next OSC 133 B). */
  run(line: string, ms?: number): Promise<void>;
  /** Waits until the output (from `from` on) matches. */
  waitFor(pattern: RegExp, ms?: number, from?: number): Promise<void>;
  /** The OSC 133 and OSC 7 marks in order ("133;A", "133;D;1", "7;file://host/tmp"), from `from` on. */
  marks(from?: number): string[];
  /** How many times the output so far holds `needle`. */
  count(needle: string): number;
};

export type ScreenOptions = {
  shell: string;
  home: string;
  integration?: boolean;
  cols?: number;
  rows?: number;
  cwd?: string;
  env?: Record<string, string>;
};

/** Opens the terminal as the link would, with a sink that keeps everything as text. */
export function openScreen(opts: ScreenOptions): Screen {
  const decoder = new TextDecoder();
  let out = "";
  const terminal = openTerminal({
    cwd: opts.cwd ?? opts.home,
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    integration: opts.integration ?? true,
    env: { PATH: process.env.PATH, HOME: opts.home, USER: "tester", LANG: "C.UTF-8", ...opts.env },
    shell: detectShell({ SHELL: opts.shell }, null),
    sink: { send: (frame) => void (out += decoder.decode(frame, { stream: true })), bufferedAmount: () => 0 },
  });
  open.add(terminal);
  void terminal.exited.then(() => open.delete(terminal));
  const waitFor = async (pattern: RegExp, ms = 8_000, from = 0): Promise<void> => {
    const end = Date.now() + ms;
    while (!pattern.test(out.slice(from))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} in ${JSON.stringify(out.slice(from))}`);
      await Bun.sleep(10);
    }
  };
  const count = (needle: string): number => out.split(needle).length - 1;
  return {
    terminal,
    text: () => out,
    type: (text) => terminal.input(text),
    async run(line, ms = 8_000) {
      const prompts = count("\x1b]133;B\x07");
      terminal.input(`${line}\r`);
      const end = Date.now() + ms;
      while (count("\x1b]133;B\x07") <= prompts) {
        if (Date.now() > end) throw new Error(`no prompt after ${JSON.stringify(line)}: ${JSON.stringify(out)}`);
        await Bun.sleep(10);
      }
    },
    waitFor,
    marks: (from = 0) => parseMarks(out.slice(from)),
    count,
  };
}

/** The OSC 133 and OSC 7 sequences in `text`, BEL- or ST-terminated, in order. */
export function parseMarks(text: string): string[] {
  const marks: string[] = [];
  for (const match of text.matchAll(/\x1b\]((?:133|7);[^\x07\x1b]*)(?:\x07|\x1b\\)/g)) {
    if (match[1] !== undefined) marks.push(match[1]);
  }
  return marks;
}

/** The marks that are OSC 133 D, in order. */
export function ends(marks: string[]): string[] {
  return marks.filter((mark) => mark.startsWith("133;D"));
}

/** Hangs up every terminal still open, waits for them, removes the temp dirs. */
export async function cleanup(): Promise<void> {
  const running = [...open];
  for (const terminal of running) terminal.close();
  await Promise.all(running.map((terminal) => terminal.exited));
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Alive and not a zombie (a container's PID 1 may never reap the orphans it inherits). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return process.platform !== "linux";
  }
}

/** The marks a shell writes for `cd /tmp` then `false`, and for the lines typed after them (blank ones). */
export async function commandMarks(screen: Screen, after: string[]): Promise<{ commands: string[]; after: string[] }> {
  await screen.waitFor(/\x1b\]133;B\x07/);
  const start = screen.text().length;
  await screen.run("cd /tmp");
  await screen.run("false");
  const beforeAfter = screen.text().length;
  for (const line of after) await screen.run(line);
  return { commands: screen.marks(start), after: screen.marks(beforeAfter) };
}

/**
 * The marks of a shell started in `<home>/a b/é%`, beside the OSC 7 mark it must write for it
 * (percent-encoded byte by byte).
 */
export async function startDirectoryMarks(options: Omit<ScreenOptions, "cwd">): Promise<{ marks: string[]; expected: string }> {
  const dir = join(options.home, "a b", "é%");
  mkdirSync(dir, { recursive: true });
  const screen = openScreen({ ...options, cwd: dir });
  await screen.waitFor(/\x1b\]133;B\x07/);
  return { marks: screen.marks(), expected: `7;file://${hostname()}${options.home}/a%20b/%C3%A9%25` };
}
