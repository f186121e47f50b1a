import { z } from "zod";
import description from "./job.txt" with { type: "text" };
import { within } from "../pause.ts";
import { type Job, JobLimitError, type JobStart } from "./jobs.ts";
import { fail, ok } from "./result.ts";
import { defineTool, type ToolContext, type ToolResult } from "./tool.ts";

/** Characters of a job's output one read returns at most (the rest is read on). */
const READ_CHARS = 20_000;
/** How long a job's start waits for its first output (or its end) before it returns. */
const FIRST_MOMENT_MS = 300;

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    action: z.enum(["list", "read", "stop"]),
    id: z.string().optional(),
    offset: z.number().int().min(0).optional(),
  });

/** job: lists the session's background jobs (bash with run_in_background), reads their output, stops them. */
export const jobTool = defineTool({
  name: "job",
  brief: "Lists, reads (new output since the last read, or from offset) and stops the background jobs bash started with run_in_background.",
  description,
  schema,
  // Reading what a job printed, or stopping one the model started, runs nothing new.
  permission: "read",
  needs: ["jobs"],
  kind: "execute",
  title: (input) => (input.action === "list" ? "List the background jobs" : `${input.action === "read" ? "Read the output of" : "Stop"} ${input.id ?? "a job"}`),
  paths: () => [],
  async execute(input, ctx) {
    if (input.action === "list") return listJobs(ctx);
    if (!input.id) return fail(`Say which job to ${input.action} (id: job1, …).`);
    const job = ctx.jobs.get(input.id);
    if (!job) return fail(`There is no job ${input.id} in this session.${known(ctx)}`);
    if (input.action === "read") return ok(readText(job, input.offset), { meta: jobMeta(job) });
    const wasRunning = job.state === "running";
    await job.stop();
    const head = wasRunning ? `Stopped ${job.id} and every process it started.` : `${job.id} had ended already: ${ending(job)}.`;
    return ok(`${head}\n${readText(job, undefined)}`, { meta: jobMeta(job) });
  },
});

/**
 * bash with run_in_background: starts the command as a job of the session, waits a moment for its
 * first output (or its end), and returns with its id. NOTICE: what the model should know besides (no sandbox).
 */
export async function startInBackground(command: string, ctx: ToolContext<"jobs">, start: Omit<JobStart, "command">, notice: string | null): Promise<ToolResult> {
  let job: Job;
  try {
    job = ctx.jobs.start({ command, ...start });
  } catch (error) {
    if (error instanceof JobLimitError) return fail(error.message);
    return fail(`The command could not be started: ${error instanceof Error ? error.message : String(error)}`);
  }
  await within(job.done, FIRST_MOMENT_MS);
  const lines = [`Started ${job.id} (pid ${job.pid}) in the background.`, readText(job, undefined)];
  if (job.state === "running") {
    lines.push(`Read its new output with job {"action":"read","id":"${job.id}"}; stop it with "stop". It is stopped when the session ends. What it changes is outside the turn's undo: /undo does not restore it.`);
  }
  if (notice) lines.push(notice);
  return ok(lines.join("\n"), { meta: jobMeta(job) });
}

/** The job bash's start result (its text, as the store keeps it) says it started, if it does. */
export function startedJob(output: string): string | null {
  return /^Started (job\d+) \(pid \d+\) in the background\.$/m.exec(output)?.[1] ?? null;
}

function listJobs(ctx: ToolContext<"jobs">): ToolResult {
  const jobs = ctx.jobs.list();
  if (jobs.length === 0) return ok("No background jobs in this session.", { meta: { jobs: 0 } });
  const lines = jobs.map((job) => `${job.id}  ${job.state === "running" ? `running ${seconds(job)} s, pid ${job.pid}` : ending(job)}  ${job.total} characters, ${job.unread} unread  ${job.command.split("\n")[0]}`);
  return ok(lines.join("\n"), { meta: { jobs: jobs.length, running: jobs.filter((j) => j.state === "running").length } });
}

/** What a job printed from OFFSET (default: since the last read), with where it is and how it stands. */
function readText(job: Job, offset: number | undefined): string {
  const read = job.read(offset, READ_CHARS);
  const state = job.state === "running" ? `${job.id} is running (${seconds(job)} s)` : `${job.id} ${ending(job)}`;
  const out: string[] = [];
  if (read.lost > 0) out.push(`[… ${read.lost} characters from offset ${read.from} on are no longer kept: a job keeps the last ${job.keeps} characters of its output …]`);
  if (read.text === "") out.push(read.from === read.total ? `${state}; no new output (${read.total} characters in all).` : `${state}.`);
  else out.push(`${state}; output ${read.to - read.text.length}–${read.to} of ${read.total}:`, read.text.replace(/\n$/, ""));
  if (read.to < read.total) out.push(`[… ${read.total - read.to} more characters: read again to go on, from offset ${read.to} …]`);
  return out.join("\n");
}

function ending(job: Job): string {
  if (job.state === "stopped") return "was stopped";
  if (job.signal) return `was killed by ${job.signal}`;
  return `exited with code ${job.exitCode}`;
}

function seconds(job: Job): number {
  return Math.round((Date.now() - job.startedAt) / 1000);
}

function jobMeta(job: Job): Record<string, unknown> {
  return { jobId: job.id, pid: job.pid, state: job.state, ...(job.state !== "running" ? { exitCode: job.exitCode } : {}), output: job.total };
}

function known(ctx: ToolContext<"jobs">): string {
  const ids = ctx.jobs.list().map((job) => job.id);
  return ids.length ? ` Its jobs: ${ids.join(", ")}.` : " It has none.";
}
