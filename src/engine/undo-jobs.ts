import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { Db } from "../store/db.ts";
import { listTurnMessages } from "../store/messages.ts";
import { startedJob } from "../tools/job.ts";
import { parseStored } from "./records.ts";

/** What a command line is shown as in undo's answer: its first line, at most this long. */
const COMMAND_CHARS = 80;

/** A job undo leaves alone, said as a file it skips is: the job's id in brackets, and why. */
type JobLeft = { path: string; why: string };

/** The arguments of a bash call that started a background job. */
const jobCall = lazily(() => z.object({ command: z.string(), run_in_background: z.literal(true) }));

/**
 * What undo does not restore of the turn's background jobs: a job runs on after the call that
 * started it (a server, a watcher), so what it changes is not the turn's to put back. Each job the
 * turn started is named, with its command, from the turn's stored tool results.
 */
export function jobsNotRestored(db: Db, sessionId: string, turnId: string): JobLeft[] {
  const skipped: JobLeft[] = [];
  for (const row of listTurnMessages(db, sessionId, turnId)) {
    const stored = parseStored(row);
    if (stored?.role !== "tool" || stored.body.name !== "bash" || stored.body.isError) continue;
    const call = jobCall().safeParse(stored.body.args);
    const id = call.success ? startedJob(stored.body.output) : null;
    if (!call.success || !id) continue;
    skipped.push({ path: `(${id})`, why: `\`${shortCommand(call.data.command)}\` ran in the background, outside the turn's undo: what it changed is not restored` });
  }
  return skipped;
}

function shortCommand(command: string): string {
  const line = command.trim().split("\n")[0] ?? "";
  return line.length > COMMAND_CHARS || command.trim().includes("\n") ? `${line.slice(0, COMMAND_CHARS).trimEnd()}…` : line;
}
