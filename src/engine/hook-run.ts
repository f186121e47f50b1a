import { KILL_GRACE_MS, signalRun } from "../tools/process-group.ts";
import { marked } from "../tools/run-mark.ts";
import { findSandbox, planFor, sayOnce } from "../tools/sandbox.ts";
import { type ScriptProcess, spawnScript } from "../tools/script-spawn.ts";
import type { CommandSetup } from "../tools/tool.ts";
import { watchGroup } from "../tools/watchdog.ts";

/** What a hook may print on each of stdout and stderr and be read: past it, its output is not used. */
export const HOOK_OUTPUT_MAX = 1024 * 1024;
/** After the hook exits, how long what it left running may hold its pipes open. */
const DRAIN_MS = 300;

/** How one hook command ended. `overflow`: it printed more than HOOK_OUTPUT_MAX on stdout or stderr. */
export type HookRun = {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  overflow: boolean;
  /** Why it could not be started at all. */
  failed?: string;
  /** The sentence that commands run without the sandbox, where it could not start (said once a process, as bash says it). */
  unsandboxed?: string;
};

export type HookRunOptions = {
  /** The hook's command line, run by the shell. */
  command: string;
  /** The JSON it reads on stdin. */
  input: string;
  cwd: string;
  root: string;
  setup: CommandSetup;
  /** Variables of its own beside the commands' environment (LEMBAS_PROJECT_DIR, CLAUDE_PROJECT_DIR). */
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Files of a hidden dir the hook may read all the same: its session's transcript. */
  shown?: readonly string[];
};

/**
 * Runs a hook as bash runs a command: the commands' environment (secrets left out), in the sandbox
 * where there is one, in a process group of its own stopped whole at its time limit. Its stdin is
 * the event's JSON; stdout and stderr are read apart, each up to HOOK_OUTPUT_MAX (the rest is read
 * and dropped, so a hook printing much never blocks nor fills memory). Never throws.
 */
export async function runHook(opts: HookRunOptions): Promise<HookRun> {
  // The mark reaches what the hook starts out of its group (`setsid server &`) where no PID namespace holds it.
  const { env, mark } = marked({ ...opts.setup.env, ...opts.env });
  const plan = planFor(opts.setup.hidden, opts.root, findSandbox(), env, opts.shown ?? []);
  const unsandboxed = plan.kind === "none" && plan.fallback ? sayOnce(plan.why) : null;
  const said = unsandboxed ? { unsandboxed } : {};
  let started: ScriptProcess;
  try {
    started = spawnScript(["/bin/sh", "-c"], opts.command, { cwd: opts.cwd, env, plan, stdin: "pipe" });
  } catch (error) {
    return { exitCode: null, stdout: "", stderr: "", timedOut: false, overflow: false, failed: error instanceof Error ? error.message : String(error), ...said };
  }
  const { proc } = started;
  const unwatch = watchGroup(proc.pid, started.init);
  // In bwrap, the sandbox's PID 1 is in the group: with it, every process of the sandbox goes (no
  // look for marked ones, a read of every process's environment at each hook's end). The command
  // may have moved it out (it may trace it): then its pidfd reaches it (sandbox-init.ts).
  const signal = (sig: NodeJS.Signals): void => signalRun(proc.pid, plan.kind === "bwrap" ? null : mark, started.init, sig);
  const giveUp = new AbortController();
  let emptied = false;
  let timedOut = false;
  let kill: ReturnType<typeof setTimeout> | undefined;
  const stop = (): void => {
    signal("SIGTERM");
    kill = setTimeout(() => signal("SIGKILL"), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, opts.timeoutMs);
  opts.signal.addEventListener("abort", stop, { once: true });
  try {
    if (started.stdin) void writeInput(started.stdin, opts.input);
    const read = Promise.all([bounded(started.stdout, giveUp.signal), bounded(started.stderr, giveUp.signal)]);
    await proc.exited;
    // Known before the command started (bwrap waited for it), so at once.
    const pid1 = await started.init;
    // Something it started in the background may hold its pipes: it has a moment, then goes. One
    // out of reach (it cleared its environment) is not waited for past the grace period.
    const drained = setTimeout(() => signal("SIGKILL"), DRAIN_MS);
    const abandon = setTimeout(() => giveUp.abort(), DRAIN_MS + KILL_GRACE_MS);
    const [stdout, stderr] = await read;
    clearTimeout(drained);
    clearTimeout(abandon);
    // bwrap's PID 1, the last of the sandbox to go, held stderr: what is left of the group is a
    // zombie. Unless the command shut it down early: PID 1 itself, where it is known, tells.
    emptied = plan.kind === "bwrap" && stderr.ended && (pid1 === null || pid1.ended);
    return { exitCode: timedOut ? null : proc.exitCode, stdout: stdout.text, stderr: stderr.text, timedOut, overflow: stdout.overflow || stderr.overflow, ...said };
  } finally {
    clearTimeout(timer);
    clearTimeout(kill);
    opts.signal.removeEventListener("abort", stop);
    // What it left running goes with it, in its group or out of it: a hook is not a way to start a server.
    signal("SIGKILL");
    unwatch(emptied);
  }
}

/** Writes the event's JSON and closes stdin; a hook that never reads it (exits first) is no fault. */
async function writeInput(stdin: Bun.FileSink, input: string): Promise<void> {
  try {
    stdin.write(input);
    await stdin.end();
  } catch {
    // it ended without reading its input
  }
}

/**
 * A stream read to its end, or until GIVE_UP, keeping its first HOOK_OUTPUT_MAX bytes as text;
 * `ended`: it did end, neither broke nor was given up on.
 */
async function bounded(stream: ReadableStream<Uint8Array>, giveUp: AbortSignal): Promise<{ text: string; overflow: boolean; ended: boolean }> {
  const kept: Uint8Array[] = [];
  let size = 0;
  let overflow = false;
  let ended = false;
  const reader = stream.getReader();
  const cancel = (): void => void reader.cancel().catch(() => {});
  giveUp.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      if (overflow) continue;
      if (size + chunk.length > HOOK_OUTPUT_MAX) {
        overflow = true;
        continue;
      }
      kept.push(chunk);
      size += chunk.length;
    }
    ended = !giveUp.aborted;
  } catch {
    // the pipe broke: what came is kept
  } finally {
    giveUp.removeEventListener("abort", cancel);
  }
  return { text: new TextDecoder().decode(Buffer.concat(kept)), overflow, ended };
}
