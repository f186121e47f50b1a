/** The largest message a language server may send: a bigger one is taken for garbage, not buffered. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const SEPARATOR = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);
/** The longest header lembas reads: what has no blank line within it is no header. */
const MAX_HEADER_BYTES = 1024;

/** A message framed as LSP frames it: a Content-Length header, a blank line, the JSON body. */
export function frame(message: unknown): Uint8Array {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

/**
 * Reads LSP's framing from a byte stream: whole messages as they complete. Anything else on the
 * stream (a log line printed to stdout, a header without a length, a body that is not JSON) is
 * garbage: `push` throws a sentence saying what came, and the reader is of no further use.
 *
 * A body's bytes are copied once, into a buffer of the length its header says: a message costs
 * time in proportion to its size, however small the chunks it comes in.
 */
export class FrameReader {
  /** The bytes of a header not yet whole (never more than MAX_HEADER_BYTES and a chunk). */
  private head = EMPTY;
  /** The body being read, and how many of its bytes came so far. */
  private body: { bytes: Buffer; have: number } | null = null;

  push(chunk: Uint8Array): unknown[] {
    const out: unknown[] = [];
    let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (rest.length > 0) {
      if (this.body) {
        rest = this.takeBody(rest, out);
        continue;
      }
      const head = this.head.length === 0 ? rest : Buffer.concat([this.head, rest]);
      // Only the bytes that could end the separator are scanned again.
      const end = head.indexOf(SEPARATOR, Math.max(0, this.head.length - SEPARATOR.length + 1));
      if (end < 0) {
        this.keepHead(head);
        return out;
      }
      const length = contentLength(head.subarray(0, end).toString("ascii"));
      this.head = EMPTY;
      this.body = { bytes: Buffer.allocUnsafe(length), have: 0 };
      rest = head.subarray(end + SEPARATOR.length);
      if (length === 0) rest = this.takeBody(rest, out);
    }
    return out;
  }

  /** Takes what belongs to the body from REST, parses the body once it is whole; what follows it. */
  private takeBody(rest: Buffer, out: unknown[]): Buffer {
    const body = this.body;
    if (!body) return rest;
    const taken = rest.copy(body.bytes, body.have, 0, body.bytes.length - body.have);
    body.have += taken;
    if (body.have < body.bytes.length) return EMPTY;
    this.body = null;
    const text = body.bytes.toString("utf8");
    try {
      out.push(JSON.parse(text));
    } catch {
      throw new Error(`it sent a message that is not JSON: ${JSON.stringify(text.slice(0, 60))}`);
    }
    return rest.subarray(taken);
  }

  /** A header not yet whole: checked as far as it goes, and kept for the next chunk. */
  private keepHead(head: Buffer): void {
    // A whole line that is no header is garbage already: a log line does not wait for more.
    const line = head.indexOf("\n");
    if (line >= 0) contentLength(head.subarray(0, line).toString("utf8").replace(/\r$/, ""), false);
    if (head.length > MAX_HEADER_BYTES) throw new Error(`it wrote ${JSON.stringify(head.subarray(0, 60).toString("utf8"))} where a Content-Length header belongs`);
    this.head = Buffer.from(head);
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
