import { readFile, stat } from "node:fs/promises";
import { errorCode } from "../errors.ts";
import { changedSinceRead, fsErrorMessage } from "./result.ts";
import type { ToolContext } from "./tool.ts";

/**
 * A file's text for write, edit and multi_edit, as the person has it: what the session's file
 * access holds (an editor's unsaved buffer), else the disk's; or the error reading it gave (a
 * directory is one). `held`: the text came from the access, not the disk. Where writes go to the
 * editor but its copy could not be read, that is an error too: the disk's copy may be older than
 * the buffer the write would replace.
 */
export async function readText(abs: string, ctx: Pick<ToolContext<"fileAccess">, "fileAccess" | "signal">): Promise<{ text: string; held: boolean } | { error: unknown }> {
  try {
    const info = await stat(abs);
    if (info.isDirectory()) return { error: Object.assign(new Error("is a directory"), { code: "EISDIR" }) };
    const held = await ctx.fileAccess.readText(abs, ctx.signal);
    if (held && "text" in held) return { text: held.text, held: true };
    if (held && ctx.fileAccess.writesHeld) return { error: new Error(unseenBuffer(held.why)) };
    return { text: await readFile(abs, "utf8"), held: false };
  } catch (error) {
    return { error };
  }
}

/** Why a file whose editor copy could not be read is not written through the editor. */
function unseenBuffer(why: string): string {
  return `not written: the editor's copy could not be read (${why}), so writing would replace text in it, maybe unsaved, that you have not seen; try again, or ask the person to save the file in the editor and try again.`;
}

/** Why a file could not be edited: a missing one is to be made with write. */
export function missingOrError(error: unknown, shown: string): string {
  if (errorCode(error) === "ENOENT") return `${shown} does not exist: use write to create a new file.`;
  return fsErrorMessage(error, shown);
}

/**
 * The text edit and multi_edit change: the file as it is now (the editor's buffer, where the
 * session has one), which the model must have read as it is.
 */
export async function readForEdit(abs: string, shown: string, ctx: ToolContext<"files" | "fileAccess">): Promise<{ text: string; held: boolean } | { problem: string }> {
  const read = await readText(abs, ctx);
  if ("error" in read) return { problem: missingOrError(read.error, shown) };
  const state = ctx.files.readState(abs, read.text);
  if (state === "unread") return { problem: `${shown} has not been read in this session: read it first, then edit it.` };
  if (state === "changed") return { problem: changedSinceRead(shown, "edit") };
  return read;
}

/**
 * Writes a file whole through the session's file access (the disk, or an editor that saves it),
 * for undo and the read ledger as every change is; `before` is the text as read, where it was
 * held rather than on disk. Why it failed, else null.
 */
export async function writeWhole(
  abs: string,
  text: string,
  shown: string,
  before: { text: string; held: boolean } | null,
  ctx: ToolContext<"files" | "changes" | "fileAccess">,
): Promise<string | null> {
  try {
    await ctx.changes.before(abs, before?.held ? before.text : undefined);
    const written = await ctx.fileAccess.writeText(abs, text, ctx.signal);
    ctx.changes.after(abs, written.onDisk ? undefined : text);
    ctx.files.markRead(abs, text, written.onDisk ? "disk" : "held");
    return null;
  } catch (error) {
    return fsErrorMessage(error, shown);
  }
}
