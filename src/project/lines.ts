import { closeSync, openSync, readSync } from "node:fs";

const CHUNK_BYTES = 64 * 1024;
const MARK_EVERY = 1000;

/**
 * Where lines start in one file, every MARK_EVERY-th line, learnt while scanning it: a second range
 * of the same file starts from the nearest mark instead of the top. A few numbers per thousand lines.
 */
export class LineMarks {
  private readonly lines: number[] = [1];
  private readonly offsets: number[] = [0];

  /** The latest known line start at or before `line`. */
  before(line: number): { line: number; offset: number } {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lines[mid] ?? 1) <= line) lo = mid;
      else hi = mid - 1;
    }
    return { line: this.lines[lo] ?? 1, offset: this.offsets[lo] ?? 0 };
  }

  note(line: number, offset: number): void {
    if (line % MARK_EVERY !== 1 || line <= (this.lines.at(-1) ?? 1)) return;
    this.lines.push(line);
    this.offsets.push(offset);
  }
}

export type Scan = {
  first: number;
  last: number;
  /** Lines starting at or past this byte offset are not reached. */
  maxScan: number;
  /** The most of one line kept; the rest of a longer one is dropped unread. */
  maxLineBytes: number;
};

/** Why a scan stopped. */
export type ScanEnd =
  | { why: "done" }
  | { why: "full"; line: number }
  | { why: "eof"; lines: number }
  | { why: "scan"; line: number };

/**
 * Streams lines first..last of a file to `take` (1-based, without their newline), reading it in
 * fixed chunks: only the lines asked for are decoded, and no more than maxLineBytes of each is held.
 * `take` answers false when a line does not fit ("full", at that line). Otherwise the scan ends at
 * `last` ("done"), at the end of the file ("eof", with its line count) or at maxScan bytes ("scan",
 * with the last line read whole).
 */
export function scanLines(path: string, scan: Scan, marks: LineMarks, take: (line: number, text: string) => boolean): ScanEnd {
  const start = marks.before(scan.first);
  const fd = openSync(path, "r");
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let line = start.line;
  let offset = start.offset;
  let parts: Buffer[] = [];
  let kept = 0;
  let open = false;
  const finish = (): boolean => {
    const text = Buffer.concat(parts).toString("utf8");
    parts = [];
    kept = 0;
    return take(line, text);
  };
  try {
    for (;;) {
      if (offset >= scan.maxScan) {
        if (readSync(fd, chunk, 0, 1, offset) > 0) return { why: "scan", line: line - 1 };
        break;
      }
      const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, scan.maxScan - offset), offset);
      if (read === 0) break;
      const bytes = chunk.subarray(0, read);
      for (let i = 0; i < read; ) {
        const newline = bytes.indexOf(10, i);
        const end = newline === -1 ? read : newline;
        if (line >= scan.first && kept < scan.maxLineBytes) {
          const piece = bytes.subarray(i, Math.min(end, i + scan.maxLineBytes - kept));
          parts.push(Buffer.from(piece));
          kept += piece.length;
        }
        if (newline === -1) {
          open = open || end > i;
          break;
        }
        if (line >= scan.first) {
          if (!finish()) return { why: "full", line };
          if (line >= scan.last) return { why: "done" };
        }
        line++;
        i = newline + 1;
        open = false;
        marks.note(line, offset + i);
      }
      offset += read;
    }
  } finally {
    closeSync(fd);
  }
  // A last line without a newline is a line too.
  if (!open) return { why: "eof", lines: line - 1 };
  if (line >= scan.first && !finish()) return { why: "full", line };
  return { why: "eof", lines: line };
}
