import type { Mode } from "../config/schema.ts";
import { offersTools, type ResolvedModel } from "../model/resolved.ts";
import type { StoredMessage } from "./records.ts";

const MODE_TEXT: Record<Mode, string> = {
  plan: "[lembas] The session is in plan mode: you may only read and search, not change files or run commands. Study the task, then submit a plan with plan_submit (the goal, the files to change, the steps, how to check).",
  manual: "[lembas] The session is in manual mode: every file change and command asks the person first.",
  edit: "[lembas] The session is in edit mode: file changes inside the project go ahead; commands ask the person first.",
  auto: "[lembas] The session is in auto mode: file changes and commands inside the project go ahead.",
};

type Note = { seq: number; turnId: string | null; mode: Mode };

/**
 * Where the model is told the session's mode: a note on the message after which it took effect,
 * not in the system prompt, so that a mode change leaves everything sent before it as it was (a
 * server's prefix cache holds). A note is kept while the message it sits on is sent; when that
 * message is gone (compacted, undone), the mode is told again on the newest message.
 */
export class ModeNotes {
  private notes: Note[] = [];

  /** The notes of a step's request, by the seq of the message each follows. */
  at(messages: readonly StoredMessage[], summarySeq: number | null, mode: Mode, model: Pick<ResolvedModel, "supportsTools">): Map<number, string> {
    if (!offersTools(model)) return new Map();
    const visible = summarySeq === null ? messages : messages.filter((m) => m.seq > summarySeq);
    const kept = this.notes.filter((n) => visible.some((m) => m.seq === n.seq && m.turnId === n.turnId));
    const last = visible.at(-1);
    if (kept.at(-1)?.mode !== mode && last && last.role !== "assistant") kept.push({ seq: last.seq, turnId: last.turnId, mode });
    this.notes = kept;
    return new Map(kept.map((n) => [n.seq, MODE_TEXT[n.mode]]));
  }
}
