/**
 * A session's background jobs: commands started by `bash` with `run_in_background`, each in its
 * own process group, their output kept in a bounded buffer the `job` tool reads with an offset.
 * The session owns one registry and stops every job in it when it closes; whatever of it is left
 * when the process exits is killed then, and the watchdog stops it when lembas is killed (SIGKILL).
 */
import { pumpText } from "./text-pump.ts";
import type { Subprocess } from "bun";
import { within } from "../pause.ts";
import { KILL_GRACE_MS, killGroup, leftBehind, spawnCommand, stopRun } from "./process-group.ts";
import { marked, signalMarked } from "./run-mark.ts";
import type { Plan } from "./sandbox.ts";
import type { SandboxInit } from "./sandbox-init.ts";
import { watchGroup } from "./watchdog.ts";

/** Jobs of one session running at once. */
export const MAX_RUNNING_JOBS = 8;
/** Characters of output kept per job (the last ones). */
const JOB_OUTPUT_CHARS = 1024 * 1024;
/** Finished jobs kept (with their output) for a later read; the oldest go first. */
const KEEP_FINISHED = 8;
/** After a job's shell ended, how long its pipes may take to close. */
const DRAIN_MS = 300;

export type JobState = "running" | "exited" | "stopped";

export type JobStart = {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** The sandbox to run in; none when not given. */
  plan?: Plan;
};

/** Output read from a job: characters `from` to `to` of all it printed, `lost` of those asked for no longer kept. */
export type JobRead = { text: string; from: number; to: number; total: number; lost: number };

/** One background command: its process, its state and the last of its output. */
export class Job {
  readonly startedAt = Date.now();
  state: JobState = "running";
  exitCode: number | null = null;
  /** A signal that ended it, other than our own stopping. */
  signal: string | null = null;
  /** Ends when the job has ended and its output is read. */
  readonly done: Promise<void>;
  private kept = "";
  private dropped = 0;
  private cursor = 0;
  private readonly proc: Subprocess;
  /** In the environment of every process the job starts, even one that leaves its group (run-mark.ts). */
  private readonly mark: string;
  /** Its sandbox's PID 1 (sandbox-init.ts), and the same once known (for the exit's kill, which cannot wait). */
  private readonly init: Promise<SandboxInit | null>;
  private pid1: SandboxInit | null = null;

  constructor(
    readonly id: string,
    readonly command: string,
    start: JobStart,
    /** Characters of output kept (the last ones). */
    readonly keeps: number,
  ) {
    const { env, mark } = marked(start.env);
    this.mark = mark;
    const { proc, stdout, stderr, init } = spawnCommand(command, { cwd: start.cwd, env, ...(start.plan ? { plan: start.plan } : {}) });
    this.proc = proc;
    this.init = init;
    void init.then((found) => void (this.pid1 = found));
    const unwatch = watchGroup(this.proc.pid, init);
    const onText = (text: string): void => this.append(text);
    const pumps = Promise.all([pumpText(stdout.getReader(), onText), pumpText(stderr.getReader(), onText)]);
    this.done = this.finish(pumps).finally(unwatch);
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Characters printed in all, kept or not. */
  get total(): number {
    return this.dropped + this.kept.length;
  }

  /** Characters printed and no longer kept (the buffer keeps the last ones). */
  get lost(): number {
    this.trim();
    return this.dropped;
  }

  /** Characters not read yet (after the last read). */
  get unread(): number {
    return this.total - this.cursor;
  }

  /**
   * At most MAX characters from OFFSET (a character of all the job printed; by default where the
   * last read ended). The next read without an offset goes on where this one ended.
   */
  read(offset: number | undefined, max: number): JobRead {
    this.trim();
    const total = this.total;
    const from = Math.min(Math.max(offset ?? this.cursor, 0), total);
    const start = Math.max(from, this.dropped);
    const text = this.kept.slice(start - this.dropped, start - this.dropped + max);
    const to = start + text.length;
    this.cursor = to;
    return { text, from, to, total, lost: start - from };
  }

  /** Stops the job's whole process group (SIGTERM, SIGKILL after the grace period) and waits for it to end. */
  async stop(): Promise<void> {
    if (this.state === "running") {
      this.state = "stopped";
      stopRun(this.proc.pid, this.mark, this.init);
    }
    await this.done;
  }

  /** Kills the job's group and whatever left it, at once and without waiting (the process exits). */
  killNow(): void {
    killGroup(this.proc.pid, "SIGKILL");
    signalMarked(this.mark, "SIGKILL");
    this.pid1?.kill();
  }

  private async finish(pumps: Promise<unknown>): Promise<void> {
    await this.proc.exited;
    this.exitCode = this.proc.exitCode;
    if (this.state === "running") {
      this.state = "exited";
      this.signal = this.proc.signalCode === null ? null : String(this.proc.signalCode);
    }
    // What the job's shell left behind in its group is stopped with it, as bash does.
    const stopping = this.state === "stopped";
    const left = !stopping && (await leftBehind(this.proc.pid, this.mark, await this.init));
    if (left) stopRun(this.proc.pid, this.mark, this.init);
    await within(pumps, stopping || left ? KILL_GRACE_MS + DRAIN_MS : DRAIN_MS);
  }

  private append(text: string): void {
    if (text === "") return;
    this.kept += text;
    // Trimming only at twice the size keeps appends cheap; reads trim exactly.
    if (this.kept.length > this.keeps * 2) this.trim();
  }

  private trim(): void {
    const cut = this.kept.length - this.keeps;
    if (cut <= 0) return;
    this.dropped += cut;
    this.kept = this.kept.slice(cut);
  }
}

/** Too many jobs running at once: said to the model as the tool's error. */
export class JobLimitError extends Error {}

/**
 * One session's jobs, numbered job1, job2, … in the order they started. While one has not ended,
 * the process's exit kills it.
 */
export class Jobs {
  private readonly jobs = new Map<string, Job>();
  /** Jobs not ended yet, finished ones forgotten or not: what the exit kills and `ended` waits for. */
  private readonly live = new Set<Job>();
  private readonly killLive = (): void => {
    for (const job of this.live) job.killNow();
  };
  private next = 1;
  private closed = false;

  constructor(private readonly limits: { running: number; chars: number } = { running: MAX_RUNNING_JOBS, chars: JOB_OUTPUT_CHARS }) {}

  /** Starts a job; throws JobLimitError when the limit runs already, and whatever spawning throws. */
  start(start: JobStart): Job {
    if (this.closed) throw new Error("the session is closing: no job starts now");
    const running = this.list().filter((job) => job.state === "running");
    if (running.length >= this.limits.running) {
      throw new JobLimitError(
        `${running.length} background jobs run already (${running.map((j) => j.id).join(", ")}), the most one session may run at once: stop one first (job with action "stop").`,
      );
    }
    const job = new Job(`job${this.next}`, start.command, start, this.limits.chars);
    this.next++;
    this.jobs.set(job.id, job);
    this.watch(job);
    this.forgetOldFinished();
    return job;
  }

  list(): Job[] {
    return [...this.jobs.values()];
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Stops every job (the session closes); none starts afterwards. */
  async stopAll(): Promise<void> {
    this.closed = true;
    await Promise.all(this.list().map((job) => job.stop()));
  }

  /** Waits (at most MS) for every job to end: after the session closed, at the engine's stop. */
  async ended(ms = KILL_GRACE_MS + 1_000): Promise<void> {
    if (this.live.size > 0) await within(Promise.allSettled([...this.live].map((job) => job.done)), ms);
  }

  /** Whether a job has not ended yet. */
  get ending(): boolean {
    return this.live.size > 0;
  }

  private watch(job: Job): void {
    if (this.live.size === 0) process.on("exit", this.killLive);
    this.live.add(job);
    void job.done.finally(() => {
      this.live.delete(job);
      if (this.live.size === 0) process.off("exit", this.killLive);
    });
  }

  private forgetOldFinished(): void {
    const finished = this.list().filter((job) => job.state !== "running");
    for (const job of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.jobs.delete(job.id);
  }
}

