/**
 * Drives the interactive terminal in tmux, as a person would: each screen in its own tmux server
 * (`tmux -L <socket>`), 120×40 unless told, the program spawned with the sandbox's environment.
 *
 * ```ts
 * const screen = await openScreen(box, { cwd: box.project });
 * await screen.waitFor("test/test-model");
 * await screen.type("hello", "Enter");
 * await screen.waitFor("› hello");
 * await screen.close();
 * ```
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_WAIT_MS, sleep } from "./recorder.ts";
import { profiled, type Sandbox } from "./run.ts";
import { tool } from "./tools.ts";

export const HAVE_TMUX = tool("tmux", "tmux", "the interactive terminal's tests (each drives it in tmux)") !== null;

let count = 0;

export type Screen = {
  socket: string;
  /** What the pane shows now, one string, lines joined by "\n" (trailing blanks trimmed). */
  text(): string;
  /** Waits until the pane shows `what` (a string or a pattern); throws with the screen if it never does. */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Waits until `what` is gone from the pane. */
  waitGone(what: string | RegExp, timeoutMs?: number): Promise<string>;
  /** tmux send-keys: each argument a key name ("Enter", "Escape", "C-c", "BTab") or literal text (`-l`). */
  type(...keys: string[]): Promise<void>;
  /** Literal text, then nothing else. */
  write(text: string): Promise<void>;
  /** A bracketed paste of `text`, as a terminal sends one. */
  paste(text: string): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  /** Records every byte the program writes to the terminal from now on; `bytes()` reads them so far. */
  record(): Promise<{ bytes(): string }>;
  /** The program's exit code once it ended (the pane stays), or null while it runs. */
  exitCode(): number | null;
  /** Waits for the program to end; its code. */
  exited(timeoutMs?: number): Promise<number>;
  /** The program's pid (the shell's child), for signals. */
  pid(): number;
  close(): Promise<void>;
};

/** Starts `lembas ARGS` in a new tmux server of its own, in the sandbox's environment. */
export async function openScreen(
  box: Sandbox,
  opts: { args?: string[]; cwd?: string; columns?: number; rows?: number; env?: Record<string, string>; source?: boolean } = {},
): Promise<Screen> {
  const socket = `lembas-test-${process.pid}-${++count}`;
  const dir = mkdtempSync(join(tmpdir(), "lembas-tmux-"));
  const codeFile = join(dir, "code");
  const pidFile = join(dir, "pid");
  const program = profiled("terminal", { source: opts.source });
  const env = { ...box.env, ...program.env, ...opts.env, TERM: "xterm-256color" };
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}=${shellQuote(v)}`)
    .join("; ");
  const command = [...program.command, ...(opts.args ?? [])].map(shellQuote).join(" ");
  const script = join(dir, "run.sh");
  // In the foreground (a background job's stdin is not the terminal); the pid is the program's, by exec.
  const inner = `echo $$ > ${shellQuote(pidFile)}; exec ${command}`;
  // The code is written aside and renamed into place: read while `echo $? >` had made the file and not
  // yet written it, it was empty, and an empty file read as exit code 0 (CI saw exit 2 read as 0).
  const written = `echo $? > ${shellQuote(`${codeFile}.part`)}; mv ${shellQuote(`${codeFile}.part`)} ${shellQuote(codeFile)}`;
  writeFileSync(script, `${exports}\ncd ${shellQuote(opts.cwd ?? box.dir)}\nbash -c ${shellQuote(inner)}\n${written}\nsleep 600\n`);
  await tmux(socket, ["new-session", "-d", "-x", String(opts.columns ?? 120), "-y", String(opts.rows ?? 40), `bash ${shellQuote(script)}`]);
  // What the program writes goes to a file too (tmux pipe-pane; record() starts a new one): a wait
  // captures the pane again only once it grew, not 40 times a second for nothing — each capture is
  // a tmux process, and the waits of a whole run spent a good part of a core on them.
  let piped = join(dir, "bytes-0");
  let pipes = 0;
  const pipeTo = async (file: string) => {
    writeFileSync(file, "");
    await tmux(socket, ["pipe-pane", "-t", "0", `cat >> ${shellQuote(file)}`]);
    piped = file;
  };
  const pipedSize = () => {
    try {
      return statSync(piped).size;
    } catch {
      return -1;
    }
  };
  await pipeTo(piped);
  const text = () => capture(socket);
  const waitUntil = async (test: (screen: string) => boolean, what: string, timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    let size = pipedSize();
    let capturedAt = Date.now();
    let screen = text();
    while (!test(screen)) {
      if (Date.now() > until) throw new Error(`the screen never ${what} in ${timeoutMs} ms; it shows:\n${screen}`);
      await sleep(25);
      const now = pipedSize();
      // Captured again when the program wrote, and now and then all the same.
      if (now === size && Date.now() - capturedAt < 250) continue;
      size = now;
      capturedAt = Date.now();
      screen = text();
    }
    return screen;
  };
  const matches = (screen: string, what: string | RegExp) => (typeof what === "string" ? screen.includes(what) : what.test(screen));
  const exitCode = () => {
    try {
      const text = readFileSync(codeFile, "utf8").trim();
      return /^\d+$/.test(text) ? Number(text) : null;
    } catch {
      return null;
    }
  };
  return {
    socket,
    text,
    waitFor: (what, timeoutMs = DEFAULT_WAIT_MS) => waitUntil((s) => matches(s, what), `showed ${what}`, timeoutMs),
    waitGone: (what, timeoutMs = DEFAULT_WAIT_MS) => waitUntil((s) => !matches(s, what), `stopped showing ${what}`, timeoutMs),
    async type(...keys) {
      for (const key of keys) {
        const named = /^(Enter|Escape|Tab|BTab|BSpace|Up|Down|Left|Right|Home|End|PPage|NPage|Space|[CM]-.+|F\d+)$/.test(key);
        await tmux(socket, ["send-keys", "-t", "0", ...(named ? [key] : ["-l", key])]);
      }
    },
    write: (literal) => tmux(socket, ["send-keys", "-t", "0", "-l", literal]),
    async paste(literal) {
      await tmux(socket, ["set-buffer", "--", literal]);
      await tmux(socket, ["paste-buffer", "-p", "-t", "0"]);
    },
    resize: (columns, rows) => tmux(socket, ["resize-window", "-t", "0", "-x", String(columns), "-y", String(rows)]),
    async record() {
      const file = join(dir, `bytes-${++pipes}`);
      await pipeTo(file);
      return { bytes: () => readFileSync(file, "latin1") };
    },
    exitCode,
    async exited(timeoutMs = DEFAULT_WAIT_MS) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const code = exitCode();
        if (code !== null) return code;
        if (Date.now() > until) throw new Error(`the program did not end in ${timeoutMs} ms; the screen:\n${text()}`);
        await sleep(25);
      }
    },
    pid: () => Number(readFileSync(pidFile, "utf8").trim()),
    async close() {
      try {
        const pid = Number(readFileSync(pidFile, "utf8").trim());
        if (exitCode() === null && pid > 0) process.kill(pid, "SIGKILL");
      } catch {
        // never started, or already gone
      }
      await tmux(socket, ["kill-server"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function capture(socket: string): string {
  const out = Bun.spawnSync(["tmux", "-L", socket, "capture-pane", "-p", "-t", "0"], { stdout: "pipe", stderr: "pipe" });
  return out.stdout.toString().replace(/\s+$/, "");
}

async function tmux(socket: string, args: string[]): Promise<void> {
  const proc = Bun.spawn(["tmux", "-L", socket, ...args], { stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`tmux ${args[0]} failed (${code}): ${await new Response(proc.stderr).text()}`);
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
