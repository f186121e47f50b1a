import type { TurnAnswer } from "../engine/session.ts";
import { dirsDone } from "../engine/undo-dirs.ts";

/**
 * What an action (a command that sends nothing to the model: /compact, /undo, /plan, a /review
 * with nothing to review) came to, in one sentence a front end says as it is; null for a turn
 * that went to the model, whose events said it all.
 */
export function actionResult(answer: TurnAnswer): { line: string; failed: boolean } | null {
  if (!answer.action) return null;
  if (answer.error) return { line: answer.error, failed: true };
  // Only a /compact can be stopped mid-way: nothing was kept.
  if (answer.stopReason === "cancelled") return { line: `/${answer.command ?? "the command"} was cancelled: the conversation is as it was`, failed: false };
  const meta = answer.meta ?? {};
  if (answer.command === "undo") {
    const undone = meta.undone as
      | { prompt?: string; files?: unknown[]; skipped?: { path: string; why: string }[]; removedDirs?: string[]; putBackDirs?: string[] }
      | null
      | undefined;
    if (!undone) return { line: "there is nothing to undo", failed: false };
    // What undo left as it is is said with the rest: a person must not take it for restored.
    const skipped = (undone.skipped ?? []).map((s) => `${s.path}: ${s.why}`);
    const left = skipped.length > 0 ? `. Not restored: ${skipped.join("; ")}` : "";
    const restored = undone.files?.length ?? 0;
    const done = [`${restored} ${restored === 1 ? "file" : "files"} restored`, ...dirsDone(undone)].join("; ");
    return { line: `undid the last turn (${done}): “${undone.prompt ?? ""}”${left}`, failed: false };
  }
  if (answer.command === "compact") return { line: "the conversation was compacted", failed: false };
  if (answer.command === "plan" && typeof meta.mode === "string") return { line: `mode: ${meta.mode}`, failed: false };
  if (typeof meta.message === "string") return { line: meta.message, failed: false };
  return null;
}
