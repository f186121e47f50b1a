/**
 * What an event named `error` (an `event: error` line) is given as: its data after this prefix,
 * which no JSON text starts with. Anthropic's streams report failures so
 * (docs.anthropic.com/en/docs/build-with-claude/streaming#error-events), and proxies in front of
 * it pass that on; an OpenAI-compatible chunk never has an event name. An `error:` line (older
 * llama.cpp) is given the same way.
 */
export const SSE_ERROR_EVENT = "\u0000error\u0000";

/**
 * A server-sent events reader that keeps only the `data` of each event, which is all the
 * chat-completions stream uses, and marks an `error` event's (see {@link SSE_ERROR_EVENT}).
 * Lines end in \n, \r\n or \r (also across chunk boundaries); comments (`:` lines: `: keep-alive`,
 * OpenRouter's `: OPENROUTER PROCESSING`) and other fields are skipped; blank lines between
 * events (keep-alives) end nothing; multi-line data is joined with \n.
 */
export class SseParser {
  /** Pieces of a line not yet ended; joined once, when its end arrives. */
  private partial: string[] = [];
  private partialLength = 0;
  /** The data of the event being read; null before its first data line. */
  private data: string | null = null;
  /** The event being read was named `error`. */
  private errorEvent = false;
  /** The last chunk ended in \r: a \n starting the next one belongs to that line end. */
  private skipLf = false;

  /** @param maxLineChars a line longer than this is an error, so a broken server cannot fill memory */
  constructor(private readonly maxLineChars = 16 * 1024 * 1024) {}

  /** Feeds decoded text; appends the data of every event it completes to `out`. */
  push(text: string, out: string[]): void {
    let start = 0;
    if (this.skipLf) {
      this.skipLf = false;
      if (text.charCodeAt(0) === 10) start = 1;
    }
    if (text.indexOf("\r", start) === -1) this.pushLf(text, start, out);
    else this.pushAnyEnding(text, start, out);
  }

  /** Ends the stream: a last line or event left without its blank line still counts. */
  end(out: string[]): void {
    if (this.partialLength > 0) this.line(this.takePartial(""), out);
    this.line("", out);
  }

  /** The common case: lines end in \n only. */
  private pushLf(text: string, start: number, out: string[]): void {
    let lf = text.indexOf("\n", start);
    while (lf !== -1) {
      if (this.partialLength > 0) this.line(this.takePartial(text.slice(start, lf)), out);
      else this.lineIn(text, start, lf, out);
      start = lf + 1;
      lf = text.indexOf("\n", start);
    }
    this.keep(text, start);
  }

  /** Lines that may end in \r or \r\n (llama.cpp and others send \r\n): found with indexOf, not a loop per character. */
  private pushAnyEnding(text: string, start: number, out: string[]): void {
    const n = text.length;
    let cr = text.indexOf("\r", start);
    let lf = text.indexOf("\n", start);
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : cr < lf ? cr : lf;
      if (this.partialLength > 0) this.line(this.takePartial(text.slice(start, end)), out);
      else this.lineIn(text, start, end, out);
      start = end + 1;
      if (end === cr) {
        if (start === n) this.skipLf = true;
        else if (lf === start) start++;
      }
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
    }
    this.keep(text, start);
  }

  private keep(text: string, start: number): void {
    if (start >= text.length) return;
    const rest = text.slice(start);
    this.partial.push(rest);
    this.partialLength += rest.length;
    if (this.partialLength > this.maxLineChars) throw new SseLineTooLong(this.maxLineChars);
  }

  private takePartial(end: string): string {
    if (this.partialLength === 0) return end;
    this.partial.push(end);
    const line = this.partial.join("");
    this.partial = [];
    this.partialLength = 0;
    return line;
  }

  /**
   * A line whole in `text` (from `start` to `end`), read where it lies: a comment (`: keep-alive`)
   * or a blank line makes no string, and a `data` line only its value's.
   */
  private lineIn(text: string, start: number, end: number, out: string[]): void {
    if (start === end) return this.line("", out);
    const first = text.charCodeAt(start);
    if (first === 58 /* : */) return;
    if (first !== 100 /* d */ || end - start < 5 || text.charCodeAt(start + 4) !== 58 || !text.startsWith("data", start)) return this.line(text.slice(start, end), out);
    const from = start + (start + 5 < end && text.charCodeAt(start + 5) === 32 ? 6 : 5);
    this.addData(text.slice(from, end));
  }

  private addData(value: string): void {
    this.data = this.data === null ? value : `${this.data}\n${value}`;
  }

  private line(line: string, out: string[]): void {
    if (line.length === 0) {
      if (this.errorEvent) out.push(SSE_ERROR_EVENT + (this.data ?? ""));
      else if (this.data !== null) out.push(this.data);
      this.data = null;
      this.errorEvent = false;
      return;
    }
    if (!line.startsWith("data")) {
      if (line.startsWith("event")) this.errorEvent = /^event: ?error\s*$/.test(line);
      else if (line.startsWith("error:")) {
        // llama.cpp's server before ggml-org/llama.cpp#16109 (2025-09) sent a failure as an
        // `error: {…}` field of its own, then `data: [DONE]`.
        this.errorEvent = true;
        this.data = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
      }
      return; // a comment, or a field the stream does not use
    }
    let value: string;
    if (line.length === 4) value = "";
    else if (line.charCodeAt(4) !== 58 /* : */) return;
    else value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
    this.addData(value);
  }
}

/** A line longer than the parser's limit. */
export class SseLineTooLong extends Error {
  override readonly name = "SseLineTooLong";
  constructor(readonly limit: number) {
    super(`a line of the stream is longer than ${limit} characters`);
  }
}

/**
 * The data of the events of a byte stream, a batch per read from the network (so a consumer pays
 * one async step per read, not per event). Stops reading (and releases the body) when the
 * consumer stops; throws what the body throws (an AbortError when the fetch was aborted).
 */
export async function* sseBatches(body: ReadableStream<Uint8Array>, watch?: ReadWatch): AsyncGenerator<string[], void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finished = false;
  try {
    for (;;) {
      watch?.reading();
      const { done, value } = await reader.read();
      watch?.read();
      if (done) break;
      const out: string[] = [];
      parser.push(decoder.decode(value, { stream: true }), out);
      if (out.length > 0) yield out;
    }
    finished = true;
    const out: string[] = [];
    parser.push(decoder.decode(), out);
    parser.end(out);
    if (out.length > 0) yield out;
  } finally {
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Told of each read of a body: asked for, and answered (idle.ts watches for a silent server with it). */
export type ReadWatch = { reading(): void; read(): void };

/** The data of each event of a byte stream, one at a time (see {@link sseBatches}). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  for await (const batch of sseBatches(body)) yield* batch;
}
