/** The largest message a language server may send: a bigger one is taken for garbage, not buffered. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const SEPARATOR = Buffer.from("\r\n\r\n");

/** A message framed as LSP frames it: a Content-Length header, a blank line, the JSON body. */
export function frame(message: unknown): Uint8Array {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

/**
 * Reads LSP's framing from a byte stream: whole messages as they complete. Anything else on the
 * stream (a log line printed to stdout, a header without a length, a body that is not JSON) is
 * garbage: `push` throws a sentence saying what came, and the reader is of no further use.
 */
export class FrameReader {
  private buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): unknown[] {
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
    const out: unknown[] = [];
    for (;;) {
      const end = this.buffer.indexOf(SEPARATOR);
      if (end < 0) {
        // A whole line that is no header is garbage already: a log line does not wait for more.
        const line = this.buffer.indexOf("\n");
        if (line >= 0) contentLength(this.buffer.subarray(0, line).toString("utf8").replace(/\r$/, ""), false);
        if (this.buffer.length > 1024) throw new Error(`it wrote ${JSON.stringify(this.buffer.subarray(0, 60).toString("utf8"))} where a Content-Length header belongs`);
        return out;
      }
      const length = contentLength(this.buffer.subarray(0, end).toString("ascii"));
      const start = end + SEPARATOR.length;
      if (this.buffer.length < start + length) return out;
      const body = this.buffer.subarray(start, start + length).toString("utf8");
      this.buffer = this.buffer.subarray(start + length);
      try {
        out.push(JSON.parse(body));
      } catch {
        throw new Error(`it sent a message that is not JSON: ${JSON.stringify(body.slice(0, 60))}`);
      }
    }
  }
}

/** The Content-Length a header says; `whole: false` checks the lines so far, which need not say it yet. */
function contentLength(header: string, whole = true): number {
  let length: number | null = null;
  for (const line of header.split("\r\n")) {
    const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    if (!match) throw new Error(`it wrote ${JSON.stringify(line.slice(0, 60))} where a header belongs`);
    if (match[1]?.toLowerCase() === "content-length") length = Number(match[2]);
  }
  if (!whole) return 0;
  if (length === null || !Number.isInteger(length) || length < 0) throw new Error(`it sent a header without a Content-Length: ${JSON.stringify(header.slice(0, 60))}`);
  if (length > MAX_MESSAGE_BYTES) throw new Error(`it sent a message of ${length} bytes, more than lembas reads`);
  return length;
}
