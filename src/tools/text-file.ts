import { readFile, stat } from "node:fs/promises";
import { errorCode } from "../errors.ts";
import { writeAtomic } from "./atomic.ts";
import { changedSinceRead, fsErrorMessage } from "./result.ts";
import type { ToolContext } from "./tool.ts";

/** A file's text for edit and multi_edit, or the error reading it gave (a directory is one). */
export async function readText(abs: string): Promise<{ text: string } | { error: unknown }> {
  try {
    const info = await stat(abs);
    if (info.isDirectory()) return { error: Object.assign(new Error("is a directory"), { code: "EISDIR" }) };
    return { text: await readFile(abs, "utf8") };
  } catch (error) {
    return { error };
  }
}

/** Why a file could not be edited: a missing one is to be made with write. */
export function missingOrError(error: unknown, shown: string): string {
  if (errorCode(error) === "ENOENT") return `${shown} does not exist: use write to create a new file.`;
  return fsErrorMessage(error, shown);
}

/** The text edit and multi_edit change: the file as it is now, which the model must have read as it is. */
export async function readForEdit(abs: string, shown: string, ctx: ToolContext<"files">): Promise<{ text: string } | { problem: string }> {
  const read = await readText(abs);
  if ("error" in read) return { problem: missingOrError(read.error, shown) };
  const state = ctx.files.readState(abs);
  if (state === "unread") return { problem: `${shown} has not been read in this session: read it first, then edit it.` };
  if (state === "changed") return { problem: changedSinceRead(shown, "edit") };
  return read;
}

/** Writes an edited file whole, for undo and the read ledger as every change is; why it failed, else null. */
export async function writeEdited(abs: string, text: string, shown: string, ctx: ToolContext<"files" | "changes">): Promise<string | null> {
  try {
    await ctx.changes.before(abs);
    await writeAtomic(abs, text);
    ctx.changes.after(abs);
    ctx.files.markRead(abs, text);
    return null;
  } catch (error) {
    return fsErrorMessage(error, shown);
  }
}
