import { type AnyMessage, type FirstAnswer, frameText, MAX_MESSAGE_BYTES, messageStream, parseFrame, protocolError, type Stream } from "./stream.ts";

/** The most bytes of messages let go (see lineTransport's send) before they are flushed. */
const UNFLUSHED_BYTES = 64 * 1024;

/**
 * JSON-RPC over a byte stream, one message a line (ACP over stdio). Lines are split as bytes
 * arrive; a line longer than the limit is answered with -32600 and skipped up to its end without
 * being kept, so no single message can exhaust memory or end the connection.
 */
export function lineTransport(
  input: ReadableStream<Uint8Array>,
  /** `answer`: the message answers a request, and leaves now rather than with the next burst. */
  write: (text: string, answer: boolean) => Promise<void> | void,
  opts: { maxLineBytes?: number; answerFirst?: FirstAnswer } = {},
): {
  stream: Stream;
  finished: Promise<void>;
  /** Resolves once the first message was read (and answered, if `answerFirst` answers it), or the input ended. */
  firstRead: Promise<void>;
  answered(): Promise<void>;
  end(): void;
} {
  const max = opts.maxLineBytes ?? MAX_MESSAGE_BYTES;
  // The dispatcher writes one message after the last one's promise settled: a message is let go as soon
  // as it is handed to `write`, so that a burst leaves in one flush, and waited on only while more
  // than UNFLUSHED_BYTES are on their way (a reader that does not keep up slows the writer).
  let unflushed = 0;
  let lastFlush: Promise<void> = Promise.resolve();
  const send = async (message: AnyMessage) => {
    const text = `${frameText(message)}\n`;
    unflushed += text.length;
    // A closed stdout (the editor went away) must not crash the process: what cannot be sent is dropped.
    const flushed = (async () => {
      try {
        await write(text, "id" in message && !("method" in message));
      } catch {
        // EPIPE: nobody reads any more; end of stdin follows
      }
      unflushed -= text.length;
    })();
    lastFlush = flushed;
    if (unflushed > UNFLUSHED_BYTES) await flushed;
  };
  const messages = messageStream(send, { answerFirst: opts.answerFirst });
  const { stream, deliver, end } = messages;
  /** Every request read so far answered, and the answers flushed. */
  const answered = () => messages.answered().then(() => lastFlush);
  let read: () => void = () => {};
  const firstRead = new Promise<void>((resolve) => (read = resolve));
  const decoder = new TextDecoder();
  let pieces: Uint8Array[] = [];
  let size = 0;
  let skipping = false;

  const line = (bytes: Uint8Array) => {
    const text = decoder.decode(bytes).trim();
    if (!text) return;
    const message = parseFrame(text, (m) => void send(m));
    if (message !== undefined) deliver(message);
    read();
  };
  const tooLong = () => void send(protocolError(-32600, `Invalid request: the message is longer than ${max} bytes`));

  const take = (chunk: Uint8Array) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      if (size + part.length > max) {
        tooLong();
        pieces = [];
        size = 0;
        continue;
      }
      line(size === 0 ? part : Buffer.concat([...pieces, part]));
      pieces = [];
      size = 0;
    }
    if (start >= chunk.length || skipping) return;
    const rest = chunk.subarray(start);
    if (size + rest.length > max) {
      tooLong();
      pieces = [];
      size = 0;
      skipping = true;
      return;
    }
    pieces.push(rest.slice());
    size += rest.length;
  };

  const finished = (async () => {
    const reader = input.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value) take(value);
      }
      if (size > 0 && !skipping) line(Buffer.concat(pieces));
    } finally {
      reader.releaseLock();
      read();
    }
  })();
  return { stream, finished, firstRead, answered, end };
}

/**
 * Keeps stdout for protocol messages only: everything else that would print there (console.log,
 * a stray process.stdout.write) goes to stderr. Returns the one writer that reaches stdout.
 */
export function guardStdout(): (text: string, answer: boolean) => Promise<void> {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.table = toStderr;
  // process.stdout is stderr's stream here, put in its place unread: reading process.stdout makes
  // Node's stream for it and loads Node's stream modules (measured: about 1 ms of CPU of the 15 a
  // fresh serve --stdio spends before its initialize answer). Nothing on an editor's way reads it.
  Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, get: () => process.stderr });
  return batchedWriter(Bun.stdout.writer());
}

/** What batchedWriter writes to: Bun's FileSink, as Bun.stdout.writer() gives it. */
export type Sink = { write(text: string): unknown; flush(): unknown };

/**
 * A writer for a burst of messages (a replayed page, a stream of updates): the first message since
 * the last flush leaves at once (the turn of the loop may be far off: a model's answer read in one
 * piece is streamed, committed and ended in one run of microtasks, and its first chunk waited for
 * all of it: bench/START.md); the rest are gathered and handed to the sink as one text at the next
 * turn of the event loop, and every writer's promise settles when its message has been flushed.
 * Bun's FileSink writes its buffer out whenever a write takes it past about 4 KiB, so a message at a
 * time made one write(2) (and four epoll_ctl) for each 4.8 KB of a replay: 200 for a 200-turn
 * session/load, a third of its CPU. One text a burst is one write(2), or as many as the pipe takes.
 * An answer leaves at once, with what is before it: the editor waits on it, and the turn of the
 * loop may be far off (initialize is answered before the engine's modules load, which holds it).
 */
export function batchedWriter(sink: Sink): (text: string, answer: boolean) => Promise<void> {
  let gathered: string[] = [];
  const handOver = () => {
    if (gathered.length === 0) return;
    const text = gathered.length === 1 ? (gathered[0] ?? "") : gathered.join("");
    gathered = [];
    sink.write(text);
  };
  let flushing: Promise<void> | null = null;
  return (text, answer) => {
    if (answer) {
      gathered.push(text);
      handOver();
      return Promise.resolve(sink.flush()).then(() => {});
    }
    if (flushing) {
      gathered.push(text);
      return flushing;
    }
    sink.write(text);
    const first = sink.flush();
    flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      try {
        await first;
      } finally {
        // Gathering goes on until what was gathered is handed over: a message written while a slow
        // reader holds the first one's flush must not leave ahead of those before it.
        flushing = null;
        handOver();
      }
      await sink.flush();
    });
    return flushing;
  };
}
