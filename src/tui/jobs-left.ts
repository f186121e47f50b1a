import type { Job } from "../tools/jobs.ts";
import { plain } from "./blocks/plain.ts";

/** A command named on the note: its first line, cut. */
const COMMAND_CHARS = 60;

/**
 * What the person is told as they quit, or leave for another session, with background jobs still
 * running (the session stops them): which ones, so a dev server that vanished is not a mystery.
 * Null when none runs.
 */
export function jobsLeftNote(jobs: readonly Job[], when = "as the session ended"): string | null {
  const running = jobs.filter((job) => job.state === "running");
  if (running.length === 0) return null;
  const named = running.map((job) => `${job.id} (${commandOf(job.command)})`).join(", ");
  return `Stopped ${running.length === 1 ? "the background job" : `${running.length} background jobs`} still running ${when}: ${named}`;
}

function commandOf(command: string): string {
  const first = plain(command.split("\n")[0] ?? "").trim();
  return first.length > COMMAND_CHARS ? `${first.slice(0, COMMAND_CHARS - 1)}…` : first;
}
