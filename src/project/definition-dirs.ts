import { readdirSync, statSync } from "node:fs";
import { errorCode } from "../errors.ts";

// What the person's command and skill files are read with: their folders' entries, and a description from a body's first line.

/** The first line of a Markdown body with text, its heading marks taken off, cut to 120 characters. */
export function firstLine(text: string): string | undefined {
  const line = text.split("\n").find((l) => l.trim())?.replace(/^#+\s*/, "").trim();
  return line ? line.slice(0, 120) : undefined;
}

/** A directory's entries, sorted; none when it is absent, and a notice when it cannot be listed. */
export function listDir(dir: string, notices: string[]): string[] {
  if (!isDir(dir)) return [];
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    notices.push(`${dir} is skipped: it cannot be listed (${errorCode(error) ?? "unreadable"})`);
    return [];
  }
}

export function isDir(path: string): boolean {
  try {
    // Most of the folders looked for are absent: said without an exception, at every turn.
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
