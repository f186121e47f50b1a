import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, type Stats, statSync } from "node:fs";
import { errorCode } from "../errors.ts";

// What the person's command and skill files are read with: their folders' entries, a file's text
// read only when it is a regular file of a bounded size, and a description from a body's first line.

/** The largest command file or SKILL.md read: one larger would fill a small model's whole window, and is left out. */
export const MAX_DEFINITION_BYTES = 256 * 1024;

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

/** A definition file's text, or why it was not read (a sentence that follows "is skipped: "). */
export type DefinitionText = { text: string } | { skipped: string };

/**
 * A definition file's text (links followed), read only when it is a regular file of at most
 * MAX_DEFINITION_BYTES: a FIFO's read would block the whole process until someone writes to it, a
 * device's might never end. `what` names the file in the size's sentence ("a command file").
 */
export function readDefinitionText(path: string, what: string): DefinitionText {
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    return { skipped: `it cannot be read (${errorCode(error) ?? "unreadable"})` };
  }
  const refused = refusal(info, what);
  if (refused) return { skipped: refused };
  let fd: number;
  try {
    // Never waiting on a FIFO put there since the stat: opened without blocking, then judged again as opened.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return { skipped: `it cannot be read (${errorCode(error) ?? "unreadable"})` };
  }
  try {
    const opened = refusal(fstatSync(fd), what);
    if (opened) return { skipped: opened };
    const bytes = Buffer.alloc(MAX_DEFINITION_BYTES + 1);
    let length = 0;
    while (length < bytes.length) {
      const read = readSync(fd, bytes, length, bytes.length - length, null);
      if (read === 0) break;
      length += read;
    }
    // Grown past the bound since it was looked at.
    if (length > MAX_DEFINITION_BYTES) return { skipped: tooLarge(length, what) };
    return { text: bytes.toString("utf8", 0, length) };
  } catch (error) {
    return { skipped: `it cannot be read (${errorCode(error) ?? "unreadable"})` };
  } finally {
    closeSync(fd);
  }
}

function refusal(info: Stats, what: string): string | null {
  if (!info.isFile()) return `it is ${kindOf(info)}, not a regular file`;
  return info.size > MAX_DEFINITION_BYTES ? tooLarge(info.size, what) : null;
}

function tooLarge(size: number, what: string): string {
  return `it is ${size} bytes, more than the ${MAX_DEFINITION_BYTES / 1024} KiB ${what} may have`;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "an unknown kind of file";
}
