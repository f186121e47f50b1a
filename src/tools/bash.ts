import { pumpText } from "./text-pump.ts";
import { z } from "zod";
import { within } from "../pause.ts";
import description from "./bash.txt" with { type: "text" };
import { BoundedOutput, ProgressBatcher } from "./capture.ts";
import { startInBackground } from "./job.ts";
import { KILL_GRACE_MS, killGroup, leftBehind as leftProcesses, spawnCommand, stopRun } from "./process-group.ts";
import { marked } from "./run-mark.ts";
import { fail, ok } from "./result.ts";
import { findSandbox, type Plan, planFor, sayOnce } from "./sandbox.ts";
import { defineTool, type ToolResult } from "./tool.ts";
import { watchGroup } from "./watchdog.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** After the command exits, how long its pipes may take to close (a background child may hold them). */
const DRAIN_MS = 300;
/** After the output has ended, how long the shell's own stderr may take to close. */
const STDERR_MS = 50;
/** After a sandboxed command, how long its sandbox may take to end before what is left in it is looked for. */
const SANDBOX_EMPTY_MS = 50;
const HEAD_CHARS = 10_000;
const TAIL_CHARS = 20_000;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    command: z.string().min(1),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe(`ms; default ${DEFAULT_TIMEOUT_MS}`),
    description: z.string().optional().describe("A few words for the person"),
    run_in_background: z.boolean().optional(),
  });

/**
 * bash: runs a command in its own process group, streaming output, stopping the whole group on
 * timeout or cancel; in the sandbox where there is one, and with the secrets left out of its environment.
 */
export const bashTool = defineTool({
  name: "bash",
  description,
  brief: "Runs a command line in a new shell (no stdin, no terminal: non-interactive flags only). Prefer read, grep, glob and list over cat, grep, find and ls.",
  schema,
  permission: "exec",
  needs: ["commands", "jobs"],
  kind: "execute",
  // What runs, never the model's own words for it: the person approves the title they read.
  title: (input) => `${input.run_in_background ? "Start in the background:" : "Run"} ${firstLine(input.command, 120)}`,
  paths: () => [],
  async execute(input, ctx) {
    if (ctx.signal.aborted) return fail("Cancelled before the command started.");
    const timeoutMs = Math.min(input.timeout ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
    const progress = new ProgressBatcher((text) => ctx.progress(text));
    const plan = planFor(ctx.commands.hidden, ctx.root, findSandbox(), ctx.commands.env);
    const unsandboxed = plan.kind === "none" && plan.fallback ? sayOnce(plan.why) : null;
    // The live output is where the person watching sees it; the result is where the model does.
    if (unsandboxed) progress.push(`${unsandboxed}\n`);
    // Not in the turn's undo window: what the job changes after it started is not the turn's to undo.
    if (input.run_in_background) return startInBackground(input.command, ctx, { cwd: ctx.cwd, env: ctx.commands.env, plan }, unsandboxed);
    try {
      const run = await ctx.commands.around(() =>
        runCommand(input.command, {
          cwd: ctx.cwd,
          env: ctx.commands.env,
          plan,
          signal: ctx.signal,
          timeoutMs,
          onOutput: (text) => progress.push(text),
        }),
      );
      progress.flush();
      return toResult(run, timeoutMs, unsandboxed);
    } catch (error) {
      progress.flush();
      return fail(`The command could not be run: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
});

/** How a command ended. */
export type CommandRun = {
  output: string;
  exitCode: number | null;
  /** A signal that ended it, other than our own stopping. */
  signal: string | null;
  stopped: "timeout" | "cancel" | null;
  /** Whether the command left processes running in its group (stopped then). */
  leftBehind: boolean;
};

export type RunOptions = {
  cwd: string;
  env: Record<string, string>;
  /** The sandbox to run in; none when not given. */
  plan?: Plan;
  signal: AbortSignal;
  timeoutMs: number;
  onOutput(text: string): void;
};

/**
 * Runs a command in a new session (its own process group, no controlling terminal), stdin closed.
 * On timeout or abort the whole group gets SIGTERM, then SIGKILL after a grace period; so does
 * what it left running in the background when it ended, in its group or out of it with `setsid`
 * (else `server &` would outlive lembas). The watchdog stops the group if lembas goes first.
 */
export async function runCommand(command: string, opts: RunOptions): Promise<CommandRun> {
  const { env, mark } = marked(opts.env);
  const { proc, stdout, stderr, init } = spawnCommand(command, { cwd: opts.cwd, env, ...(opts.plan ? { plan: opts.plan } : {}) });
  const unwatch = watchGroup(proc.pid, init);
  const output = new BoundedOutput(HEAD_CHARS, TAIL_CHARS);
  const onText = (text: string): void => {
    if (text === "") return;
    output.append(text);
    opts.onOutput(text);
  };
  let stopped: CommandRun["stopped"] = null;
  const stop = (why: "timeout" | "cancel"): void => {
    if (stopped) return;
    stopped = why;
    // Timed out or cancelled: "it and every process it started" stop, those that left its group too.
    stopRun(proc.pid, mark, init);
  };
  const timer = setTimeout(() => stop("timeout"), opts.timeoutMs);
  const onAbort = (): void => stop("cancel");
  opts.signal.addEventListener("abort", onAbort, { once: true });
  let emptied = false;
  const out = stdout.getReader();
  const err = stderr.getReader();
  const pumps = { out: pumpText(out, onText), err: pumpText(err, onText) };
  try {
    await proc.exited;
    // Known before the command started (bwrap waited for it), so at once.
    const pid1 = await init;
    // bwrap's PID 1 holds the stderr pipe until the last process of the sandbox has ended (the
    // shell moved its own stderr to stdout): its end says that nothing was left running, with no
    // look at every process on the machine (a few ms a command, and its PID 1 a moment to go).
    // Unless the command ended it early (PID 1's socket is the same user's to take with
    // pidfd_getfd and shut down): PID 1 itself, where it is known, tells.
    emptied = !stopped && opts.plan?.kind === "bwrap" && (await ended(pumps.err, SANDBOX_EMPTY_MS)) && (!pid1 || (await pid1.gone(SANDBOX_EMPTY_MS)));
    // Where it is not known, one signal to the group, its PID 1 with it, ends what is left.
    if (emptied && !pid1) killGroup(proc.pid, "SIGKILL");
    const leftBehind = !stopped && !emptied && (await leftProcesses(proc.pid, mark, pid1));
    if (leftBehind) stopRun(proc.pid, mark, init);
    // A stopped command may outlive what we started (bwrap ends at SIGTERM, the command need not):
    // its output is read until its group is gone, the SIGKILL at the latest.
    const drainMs = stopped || leftBehind ? KILL_GRACE_MS + DRAIN_MS : DRAIN_MS;
    const drained = await ended(pumps.out, drainMs);
    // stderr has the shell's (or bwrap's) own errors, written before it ended; a sandbox's PID 1
    // holds it open while a background process lives, so it is not waited for.
    const errEnded = await ended(pumps.err, STDERR_MS);
    if (!drained) await out.cancel().catch(() => {});
    if (!errEnded) await err.cancel().catch(() => {});
    const signal = stopped || proc.signalCode === null ? null : String(proc.signalCode);
    return { output: output.text(), exitCode: proc.exitCode, signal, stopped, leftBehind };
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", onAbort);
    unwatch(emptied);
  }
}

/** Whether PUMP ends within MS (the timer cleared either way: it holds no process up). */
async function ended(pump: Promise<void>, ms: number): Promise<boolean> {
  let done = false;
  await within(
    pump.then(() => void (done = true)),
    ms,
  );
  return done;
}


function toResult(run: CommandRun, timeoutMs: number, notice: string | null): ToolResult {
  const notes: string[] = [];
  if (run.stopped === "timeout") {
    notes.push(`The command timed out after ${formatSeconds(timeoutMs)} s: it and every process it started were stopped.`);
  }
  if (run.stopped === "cancel") notes.push("The command was cancelled: it and every process it started were stopped.");
  if (!run.stopped && run.signal) notes.push(`The command was killed by ${run.signal}.`);
  if (!run.stopped && run.exitCode !== null && run.exitCode !== 0) notes.push(`Exit code ${run.exitCode}.`);
  if (run.leftBehind) {
    notes.push("Processes it left running in the background were stopped when it ended: start a server or a watcher with run_in_background: true instead.");
  }
  if (notice) notes.push(notice);
  const body = run.output === "" ? "(no output)" : run.output.replace(/\n$/, "");
  const text = notes.length ? `${body}\n\n${notes.join("\n")}` : body;
  const meta = { exitCode: run.exitCode, ...(run.signal ? { signal: run.signal } : {}), ...(run.stopped ? { stopped: run.stopped } : {}) };
  return run.stopped ? fail(text, meta) : ok(text, { meta });
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function firstLine(text: string, max: number): string {
  const line = text.trim().split("\n")[0] ?? "";
  const more = line.length > max || text.trim().includes("\n");
  return more ? `${line.slice(0, max).trimEnd()}…` : line;
}
