import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

export type { AnyMessage, Stream };

/** The most a single incoming message may be, in bytes; a larger one is refused, not read whole. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A JSON-RPC error answer, by default one that belongs to no request (a line that was not JSON, say). */
export function protocolError(code: number, message: string, id: string | number | null = null): AnyMessage {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/**
 * The message stream the dispatcher (json-rpc.ts) reads, fed by a transport: `deliver` hands it one parsed
 * message, `reject` answers a frame that was no message at all, `end` closes it. The dispatcher's own
 * answers and requests go out through `send`. A transport is this and a few lines of framing.
 */
export function messageStream(
  send: (message: AnyMessage) => Promise<void> | void,
  opts: { answerFirst?: FirstAnswer } = {},
): {
  stream: Stream;
  deliver(message: unknown): void;
  end(): void;
  /** Resolves when every request delivered so far has been answered. */
  answered(): Promise<void>;
} {
  let controller: ReadableStreamDefaultController<AnyMessage> | null = null;
  let ended = false;
  let first = true;
  // Requests not yet answered, by id: a count, as a client may reuse an id while it is in flight.
  const open = new Map<string | number, number>();
  // Requests answered on arrival (answerFirst): the reader's own answer to each is not sent again.
  const answeredAlready = new Set<string | number>();
  const waiting: (() => void)[] = [];
  const out = (message: AnyMessage) => {
    if (!("method" in message) && "id" in message && message.id !== null) {
      const left = (open.get(message.id) ?? 1) - 1;
      if (left > 0) open.set(message.id, left);
      else open.delete(message.id);
      if (open.size === 0) for (const wake of waiting.splice(0)) wake();
      if (answeredAlready.delete(message.id)) return;
    }
    return send(message);
  };
  const readable = new ReadableStream<AnyMessage>({
    start(c) {
      controller = c;
    },
    cancel() {
      ended = true;
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write: (message) => out(message),
  });
  return {
    stream: { readable, writable },
    deliver(message) {
      if (ended || !controller) return;
      if (Array.isArray(message)) {
        void send(protocolError(-32600, "Invalid request: JSON-RPC batches are not supported"));
        return;
      }
      const problem = envelopeProblem(message);
      if (problem) {
        void send({ jsonrpc: "2.0", id: idOf(message), error: { code: -32600, message: `Invalid request: ${problem}` } });
        return;
      }
      const m = message as AnyMessage;
      if ("method" in m && "id" in m && m.id !== null) open.set(m.id, (open.get(m.id) ?? 0) + 1);
      const early = first ? opts.answerFirst?.(m) : null;
      first = false;
      if (early && "id" in early && early.id !== null) {
        answeredAlready.add(early.id);
        void send(early);
      }
      controller.enqueue(m);
    },
    answered() {
      if (open.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
      });
    },
    end() {
      if (ended) return;
      ended = true;
      controller?.close();
    },
  };
}

/**
 * Answers the first message on arrival, before the stream's reader (the dispatcher) is there, or null to
 * leave it to the reader. The reader still gets the message; its answer, which must be the same,
 * is dropped.
 */
export type FirstAnswer = (message: AnyMessage) => AnyMessage | null;

/**
 * One message as JSON text. An answer whose result cannot be written as JSON (a cycle, a BigInt: a
 * handler's bug) becomes that request's -32603 answer, so the peer learns the request failed and the
 * connection goes on; any other message that cannot be written throws, as before.
 */
export function frameText(message: AnyMessage): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if ("method" in message || !("id" in message) || !("result" in message)) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return JSON.stringify(protocolError(-32603, `Internal error: the answer could not be written as JSON (${why})`, message.id));
  }
}

/** Parses one frame; a frame that is not JSON is answered with -32700 and dropped. */
export function parseFrame(text: string, reply: (message: AnyMessage) => void): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    reply(protocolError(-32700, "Parse error: the message is not valid JSON"));
    return undefined;
  }
}

/**
 * What makes a value no JSON-RPC 2.0 request or notification, in words; null when it is one, or
 * when it is shaped as a response (no method; an id, a result or an error): a response is never
 * answered, even a malformed one, so the dispatcher settles the request it names (or logs it).
 */
export function envelopeProblem(message: unknown): string | null {
  if (typeof message !== "object" || message === null) return "a JSON-RPC message is an object";
  const m = message as Record<string, unknown>;
  if (!("method" in m) && ("id" in m || "result" in m || "error" in m)) return null;
  if (m.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("id" in m && !(m.id === null || typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id)))) {
    return "id must be a string, a number or null";
  }
  if (!("method" in m)) return "a message needs a method, or an id with a result or an error";
  if (typeof m.method !== "string" || m.method.length === 0) return "method must be a non-empty string";
  // null params are absent params (as the ACP SDK read them): some clients write an absent value so.
  if (m.params !== undefined && m.params !== null && typeof m.params !== "object") return "params must be an object or an array";
  return null;
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
