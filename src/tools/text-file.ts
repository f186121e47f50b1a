import { readFile, stat } from "node:fs/promises";
import { errorCode } from "../errors.ts";
import { fsErrorMessage } from "./result.ts";

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
