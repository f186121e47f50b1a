import { errorAnswer, RequestError } from "./request-error.ts";
import type { AnyMessage, Stream } from "./stream.ts";

export type Id = string | number | null;

/** A request read from the peer, with the signal `$/cancel_request` or the connection's end aborts. */
export type IncomingRequest = { id: Id; method: string; params: unknown; signal: AbortSignal };
export type IncomingNotification = { method: string; params: unknown };

export type Handlers = {
  /** Resolves to the result, or throws what the answer says (see errorAnswer). */
  request(request: IncomingRequest): Promise<unknown>;
  notification(notification: IncomingNotification): Promise<void> | void;
};

export type SendOptions = {
  /** Aborting it sends `$/cancel_request` for the request; its answer is still waited for. */
  cancellationSignal?: AbortSignal;
};

type Pending = { resolve(value: unknown): void; reject(error: unknown): void; cleanup(): void };

const CANCEL_REQUEST = "$/cancel_request";

/**
 * One JSON-RPC 2.0 connection over a message stream, either side of it: requests read are handed
 * to `handlers` and answered in turn, notifications never; our own requests are matched to their
 * answers by id. When the stream ends (or `close` is called) every request of ours still open is
 * rejected and every request being served has its signal aborted.
 */
export class Connection {
  private readonly pending = new Map<Id, Pending>();
  private readonly serving = new Map<Id, AbortController>();
  private readonly abort = new AbortController();
  private nextId = 0;
  private writes: Promise<void> = Promise.resolve();
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  private reader: { cancel(reason?: unknown): Promise<void> } | null = null;
  readonly closed: Promise<void>;

  constructor(
    stream: Stream,
    private readonly handlers: Handlers,
  ) {
    this.writer = stream.writable.getWriter();
    this.closed = new Promise((resolve) => this.abort.signal.addEventListener("abort", () => resolve(), { once: true }));
    void this.read(stream.readable);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  close(error?: unknown): void {
    if (this.abort.signal.aborted) return;
    const reason = error ?? new Error("ACP connection closed");
    this.abort.abort(reason);
    for (const pending of this.pending.values()) {
      pending.cleanup();
      pending.reject(reason);
    }
    this.pending.clear();
    for (const controller of this.serving.values()) controller.abort(reason);
    this.serving.clear();
    void this.reader?.cancel(reason).catch(() => {});
  }

  request(method: string, params: unknown, options: SendOptions = {}, mapAnswer?: (value: unknown) => unknown): Promise<unknown> {
    if (this.abort.signal.aborted) return settled(Promise.reject(this.closedReason()));
    const id = this.nextId++;
    const signal = options.cancellationSignal;
    const cancel = () => void this.notify(CANCEL_REQUEST, { requestId: id }).catch(() => {});
    const answer = new Promise<unknown>((resolve, reject) => {
      const cleanup = () => signal?.removeEventListener("abort", cancel);
      this.pending.set(id, { resolve: (value) => resolve(mapAnswer ? mapAnswer(value) : value), reject, cleanup });
    });
    settled(answer);
    void this.send({ jsonrpc: "2.0", id, method, params } as AnyMessage).catch(() => {});
    if (signal?.aborted) cancel();
    else signal?.addEventListener("abort", cancel, { once: true });
    return answer;
  }

  notify(method: string, params: unknown): Promise<void> {
    if (this.abort.signal.aborted) return settled(Promise.reject(this.closedReason()));
    return this.send({ jsonrpc: "2.0", method, params } as AnyMessage);
  }

  private closedReason(): unknown {
    return this.abort.signal.reason ?? new Error("ACP connection closed");
  }

  /** Messages leave one after another, each once the one before it was taken by the stream. */
  private send(message: AnyMessage): Promise<void> {
    if (this.abort.signal.aborted) return settled(Promise.reject(this.closedReason()));
    this.writes = this.writes
      .then(() => {
        if (this.abort.signal.aborted) throw this.closedReason();
        return this.writer.write(message);
      })
      .catch((error: unknown) => {
        this.close(error);
        throw error;
      });
    return this.writes;
  }

  private async read(readable: ReadableStream<AnyMessage>): Promise<void> {
    let failure: unknown;
    const reader = readable.getReader();
    this.reader = reader;
    try {
      while (!this.abort.signal.aborted) {
        const { value, done } = await reader.read();
        if (done || this.abort.signal.aborted) break;
        this.receive(value);
      }
    } catch (error) {
      failure = error;
    } finally {
      this.reader = null;
      reader.releaseLock();
      this.close(failure);
    }
  }

  private receive(message: unknown): void {
    if (Array.isArray(message)) {
      void this.send({ jsonrpc: "2.0", id: null, error: RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported").toErrorResponse() }).catch(() => {});
      return;
    }
    const m = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
    const envelope = m.jsonrpc === "2.0";
    if (envelope && typeof m.method === "string" && "id" in m && isId(m.id)) return this.serve(m.id, m.method, m.params);
    if (envelope && typeof m.method === "string" && !("id" in m)) return this.hear(m.method, m.params);
    if (typeof message === "object" && message !== null && !("method" in m) && ("id" in m || "result" in m || "error" in m)) {
      if ("id" in m) return this.answered(m);
      console.error("Invalid message", { type: "object", keys: Object.keys(m) });
      return;
    }
    void this.send({ jsonrpc: "2.0", id: null, error: RequestError.invalidRequest(message).toErrorResponse() }).catch(() => {});
  }

  private serve(id: Id, method: string, params: unknown): void {
    const controller = new AbortController();
    this.serving.set(id, controller);
    const done = () => {
      if (this.serving.get(id) === controller) this.serving.delete(id);
    };
    void this.handlers
      .request({ id, method, params, signal: controller.signal })
      .then(
        (result) => ({ result: result ?? null }),
        (error: unknown) => ({ error: errorAnswer(error, controller.signal) }),
      )
      .then((answer) => {
        if (this.abort.signal.aborted) return;
        return this.send({ jsonrpc: "2.0", id, ...answer } as AnyMessage).finally(done);
      })
      .catch(() => {});
  }

  private hear(method: string, params: unknown): void {
    if (method === CANCEL_REQUEST) {
      const requestId = (params as { requestId?: unknown } | null)?.requestId;
      const controller = isId(requestId) ? this.serving.get(requestId) : undefined;
      if (controller && !controller.signal.aborted) controller.abort(RequestError.requestCancelled({ requestId }));
    }
    void Promise.resolve()
      .then(() => this.handlers.notification({ method, params }))
      .catch((error: unknown) => {
        if (this.abort.signal.aborted) return;
        const { code, message } = errorAnswer(error);
        // The params may carry credentials (an MCP server's env): only what names the failure is logged.
        console.error("Error handling notification", { method, code, message });
      });
  }

  private answered(m: Record<string, unknown>): void {
    const id = m.id as Id;
    const pending = this.pending.get(id);
    if (!pending) {
      console.error("Got response to unknown request", id);
      return;
    }
    this.pending.delete(id);
    pending.cleanup();
    if (!isAnswer(m)) return pending.reject(RequestError.invalidRequest(m));
    if ("result" in m) return pending.resolve(m.result);
    const error = m.error as { code: number; message: string; data?: unknown };
    pending.reject(new RequestError(error.code, error.message, error.data));
  }
}

function isId(value: unknown): value is Id {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function isAnswer(m: Record<string, unknown>): boolean {
  if (m.jsonrpc !== "2.0" || !isId(m.id)) return false;
  const hasResult = Object.hasOwn(m, "result");
  const hasError = Object.hasOwn(m, "error");
  if (hasResult === hasError) return false;
  if (hasResult) return true;
  const error = m.error as Record<string, unknown> | null;
  return typeof error === "object" && error !== null && Number.isInteger(error.code) && typeof error.message === "string";
}

/** A promise whose rejection nobody may wait for is not an unhandled rejection. */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
