import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { LineMarks, scanLines } from "../project/lines.ts";

/** The largest file read whole to find a selection's lines in; a larger one is scanned for them. */
const MAX_READ_WHOLE = 32 * 1024 * 1024;
/** How far into a file a selection's lines are looked for. */
const MAX_SCAN = 64 * 1024 * 1024;

/**
 * Whether an editor's text is the file's on disk (for a selection: part of those lines of it), line
 * endings, a byte order mark and a last newline aside. What cannot be told the same is not: the
 * editor's text then stands, and the disk's never replaces it. A directory, or a file that cannot be
 * read now, counts as the same: it is attached from the disk, which lists it or says why.
 */
export function sameText(path: string, sent: string, range: { start: number; end: number } | null): boolean {
  let size: number;
  try {
    const info = statSync(path);
    if (!info.isFile()) return true;
    size = info.size;
  } catch {
    return true;
  }
  const text = comparable(sent);
  try {
    if (!range) {
      // A CRLF file is at most twice its text and a mark: one larger than that is other text, unread.
      if (size > 2 * Buffer.byteLength(text, "utf8") + 8) return false;
      return comparable(readFileSync(path, "utf8")) === text;
    }
    return selectedLines(path, size, range, Buffer.byteLength(text, "utf8")).includes(text);
  } catch {
    return true;
  }
}

/** Whether the bytes an editor sent are the file's on disk, exactly. */
export function sameBytes(path: string, sent: Uint8Array): boolean {
  try {
    const info = statSync(path);
    if (!info.isFile()) return true;
    if (info.size !== sent.length) return false;
    const fd = openSync(path, "r");
    try {
      const disk = Buffer.alloc(sent.length);
      readSync(fd, disk, 0, sent.length, 0);
      return disk.equals(sent);
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
}

/** Lines start..end of the file, comparable; of a large file only as much as could hold `bytes` of text. */
function selectedLines(path: string, size: number, range: { start: number; end: number }, bytes: number): string {
  if (size <= MAX_READ_WHOLE) return comparable(readFileSync(path, "utf8")).split("\n").slice(range.start - 1, range.end).join("\n");
  const lines: string[] = [];
  let held = 0;
  const room = 4 * bytes + 1024;
  scanLines(path, { first: range.start, last: range.end, maxScan: MAX_SCAN, maxLineBytes: room }, new LineMarks(), (_, line) => {
    held += line.length;
    if (held > room) return false;
    lines.push(line.replace(/\r$/, ""));
    return true;
  });
  return lines.join("\n");
}

function comparable(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n").replace(/\n$/, "");
}
