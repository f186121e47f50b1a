import type { Mode } from "../config/schema.ts";
import { offersTools, type ResolvedModel } from "../model/resolved.ts";
import type { StoredMessage } from "./records.ts";

const MODE_TEXT: Record<Mode, string> = {
  plan: "[lembas] The session is in plan mode: you may only read and search, not change files or run commands. Study the task, then submit a plan with plan_submit (the goal, the files to change, the steps, how to check).",
  manual: "[lembas] The session is in manual mode: every file change and command asks the person first.",
  edit: "[lembas] The session is in edit mode: file changes inside the project go ahead; commands ask the person first.",
  auto: "[lembas] The session is in auto mode: file changes and commands inside the project go ahead.",
};

/**
 * Where the model is told the session's mode: a note after the prompt of a turn whose mode
 * differs from the turn's before (the first prompt sent always has one), not in the system
 * prompt. So a mode change leaves everything sent before it as it was, and a server's prefix
 * cache holds. Derived from the stored prompts alone, the notes are the same in every step and
 * every process; a summary that stands for the earlier turns makes the first one sent say it again.
 */
export function modeNotes(messages: readonly StoredMessage[], summarySeq: number | null, model: Pick<ResolvedModel, "supportsTools">): Map<number, string> {
  const notes = new Map<number, string>();
  if (!offersTools(model)) return notes;
  let told: Mode | null = null;
  for (const message of messages) {
    if (message.role !== "user" || !message.body.mode || (summarySeq !== null && message.seq <= summarySeq)) continue;
    if (message.body.mode !== told) notes.set(message.seq, MODE_TEXT[message.body.mode]);
    told = message.body.mode;
  }
  return notes;
}
