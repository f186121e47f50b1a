import { ChunkReader, type Chunk, chunkError, chunkSchema, isWellFormedChunk } from "./chunks.ts";
import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import {
  ModelError,
  abortedError,
  cutError,
  displayUrl,
  httpError,
  isAbort,
  modelError,
  networkError,
  networkReason,
  oneLine,
  overflowError,
  readBounded,
  serverMessage,
  silenceError,
} from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { saysContextOverflow } from "./overflow.ts";
import { type ChatRequest, requestBody } from "./request.ts";
import { dialectById } from "./dialects.ts";
import { IdleWatch, type IdleLimits, idleLimits } from "./idle.ts";
import { MemoryRejectedFields, type RejectedFields, connectionKey, refusedField, shapeBody } from "./request-fields.ts";
import { DEFAULT_RETRY, type RetryPolicy, describeWait, retryDelay, serverWait } from "./retry.ts";
import { fitToolCallIds } from "./tool-call-ids.ts";
import { SSE_ERROR_EVENT, SseLineTooLong, sseBatches } from "./sse.ts";

/** Options of {@link streamChat}. */
export type StreamOptions = {
  /** Aborting stops the request, a retry's wait and the stream at once (an `aborted` error ends it). */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Defaults to the global fetch. */
  fetch?: (input: string, init: BunFetchRequestInit) => Promise<Response>;
  /** What each connection's models refused (ResolvedModel.rejectedFields); none given: this call's own memo. */
  rejectedFields?: RejectedFields;
};

/** How one try ended when it did not end well. */
type Failure = { error: ModelError; retryAfterMs: number | null; yielded: boolean };

/**
 * Streams one chat-completions reply from `POST {baseUrl}/chat/completions`.
 *
 * Never throws for a failed request: the last event is `finish`, or `error` with a
 * {@link ModelError}. Unreachable servers, 429 and 5xx (and a stream that dies or falls silent
 * before saying anything: idle.ts) are retried with backoff and jitter, honouring the server's
 * Retry-After, but only until the first event of the reply was yielded; after that a failure
 * ends the stream (`cut`, or `timeout` for silence) with what it said kept.
 */
export async function* streamChat(
  endpoint: Endpoint,
  request: ChatRequest,
  options: StreamOptions = {},
): AsyncGenerator<ModelEvent, void, undefined> {
  for await (const batch of streamChatBatches(endpoint, request, options)) yield* batch;
}

/**
 * {@link streamChat}, a batch of events per read from the network: the engine's hot path, which
 * pays one async step per network read instead of one per token.
 */
export async function* streamChatBatches(
  endpoint: Endpoint,
  request: ChatRequest,
  options: StreamOptions = {},
): AsyncGenerator<ModelEvent[], void, undefined> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const limits = idleLimits(endpoint.idle);
  const { signal } = options;
  // A field the server refuses is dropped, remembered, and the request sent again at once.
  const memo = options.rejectedFields ?? new MemoryRejectedFields();
  const connection = connectionKey(endpoint);
  // What the server's family is known to refuse is never sent, and its tool-call id rule is kept.
  const dialect = dialectById(endpoint.dialect);
  const knownRefused = () => (dialect.refuses.length === 0 ? memo.get(connection, request.model) : new Set([...dialect.refuses, ...memo.get(connection, request.model)]));
  const plain = requestBody({ ...request, messages: fitToolCallIds(request.messages, dialect.toolCallId) }, endpoint);
  let body = shapeBody(plain, knownRefused(), endpoint.reasoning);
  const used = { timeout: 0, unreachable: 0, other: 0 };
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    const failure = yield* tryOnce(endpoint, request.model, body.text, options, limits);
    if (failure === null) return;
    const { error } = failure;
    const refused = failure.yielded ? null : refusedField(error, body.fields, endpoint.reasoning);
    if (refused !== null) {
      memo.add(connection, request.model, refused);
      body = shapeBody(plain, knownRefused(), endpoint.reasoning);
      yield [{ type: "retry", attempt: 1, retries: 1, delayMs: 0, error: withoutField(error, refused) }];
      attempt--;
      continue;
    }
    const retryable = !failure.yielded && error.retryable;
    const kind = error.kind === "timeout" || error.kind === "unreachable" ? error.kind : "other";
    const limit = Math.min(policy.retries, kind === "timeout" ? policy.timeoutRetries : kind === "unreachable" ? policy.unreachableRetries : Infinity);
    const delayMs = retryDelay(policy, attempt + 1, failure.retryAfterMs);
    if (retryable && failure.retryAfterMs !== null && failure.retryAfterMs > policy.maxRetryAfterMs) {
      yield [{ type: "error", error: asksTooLong(error, failure.retryAfterMs) }];
      return;
    }
    if (!retryable || used[kind] >= limit || waitedMs + delayMs > policy.maxTotalMs || signal?.aborted) {
      yield [{ type: "error", error: attempt > 0 && retryable ? triedTimes(error, attempt + 1) : error }];
      return;
    }
    used[kind]++;
    waitedMs += delayMs;
    yield [{ type: "retry", attempt: used[kind], retries: limit, delayMs, error }];
    try {
      await policy.sleep(delayMs, signal);
    } catch {
      yield [{ type: "error", error: abortedError(endpoint) }];
      return;
    }
  }
}

/** One try, watched for silence (idle.ts): a server silent too long ends it as `timeout`. */
async function* tryOnce(
  endpoint: Endpoint,
  model: string,
  body: string,
  options: StreamOptions,
  limits: IdleLimits,
): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const watch = new IdleWatch(limits, options.signal);
  try {
    const failure = yield* tryWatched(endpoint, model, body, options, watch);
    if (failure === null || watch.timedOut === null || options.signal?.aborted) return failure;
    return { ...failure, error: silenceError(endpoint, watch.timedOut.afterMs, failure.yielded, endpoint.idle?.hint) };
  } finally {
    watch.stop();
  }
}

async function* tryWatched(
  endpoint: Endpoint,
  model: string,
  body: string,
  options: StreamOptions,
  watch: IdleWatch,
): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const { signal } = options;
  const fetchFn = options.fetch ?? fetch;
  const fail = (error: ModelError, retryAfterMs: number | null = null): Failure => ({ error, retryAfterMs, yielded: false });
  let response: Response;
  try {
    // Bun's own socket timeout (5 min) is off: the watch is the one timeout, and says so.
    const init = { method: "POST", headers: headers(endpoint), body, signal: watch.signal, timeout: false };
    response = await fetchFn(`${endpoint.baseUrl}/chat/completions`, init);
  } catch (cause) {
    return fail(networkError(endpoint, cause, signal));
  }
  if (!response.ok) {
    const text = await readBounded(response);
    if (signal?.aborted) return fail(abortedError(endpoint));
    return fail(httpError(endpoint, response.status, text, model), serverWait(response.headers, response.status));
  }
  if (response.headers.get("content-type")?.includes("application/json")) {
    const said = serverMessage(await readBounded(response));
    return fail(modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} answered with JSON, not a stream: ${said}`));
  }
  if (!response.body) return fail(cutError(endpoint, "the answer had no body"));
  return yield* readStream(endpoint, response.body, signal, watch);
}

async function* readStream(
  endpoint: Endpoint,
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
  watch: IdleWatch,
): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const reader = new ChunkReader();
  let events: ModelEvent[] = [];
  let yielded = false;
  let done = false;
  const fail = (error: ModelError): Failure => ({ error, retryAfterMs: null, yielded });
  try {
    for await (const batch of sseBatches(body, watch)) {
      for (const data of batch) {
        if (data === "[DONE]") {
          done = true;
          break;
        }
        if (data.startsWith(SSE_ERROR_EVENT)) return yield* failAfter(events, errorEvent(endpoint, data.slice(SSE_ERROR_EVENT.length), yielded || events.length > 0));
        const chunk = parseChunk(data);
        if (chunk === null) return yield* failAfter(events, malformedError(endpoint, data));
        const failed = chunkError(chunk);
        if (failed) return yield* failAfter(events, streamError(endpoint, failed, yielded || events.length > 0));
        reader.read(chunk, events);
      }
      if (events.length > 0) {
        if (signal?.aborted) return fail(abortedError(endpoint));
        yielded = true;
        yield events;
        events = [];
      }
      if (done) break;
    }
  } catch (cause) {
    if (signal?.aborted || isAbort(cause)) return fail(abortedError(endpoint));
    if (cause instanceof SseLineTooLong) return fail(modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} sent ${cause.message}`));
    // A connection lost after the reply said it was finished lost at most the usage.
    if (!reader.finished) return fail(cutError(endpoint, networkReason(cause)));
  }
  if (!done && !reader.finished) return fail(cutError(endpoint, "the stream ended before the reply did"));
  if (reader.failed) return yield* failAfter(events, streamError(endpoint, "the server ended the reply with an error", yielded || events.length > 0));
  reader.end(events);
  yield events;
  return null;

  /** Gives what the batch read before the failure, then the failure (as the per-event stream would). */
  async function* failAfter(pending: ModelEvent[], error: ModelError): AsyncGenerator<ModelEvent[], Failure, undefined> {
    if (pending.length > 0) {
      if (signal?.aborted) return fail(abortedError(endpoint));
      yielded = true;
      yield pending;
    }
    return fail(error);
  }
}

function headers(endpoint: Endpoint): Record<string, string> {
  return { "content-type": "application/json", accept: "text/event-stream", ...endpointHeaders(endpoint) };
}

function parseChunk(data: string): Chunk | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  if (isWellFormedChunk(json)) return json;
  const parsed = chunkSchema().safeParse(json);
  return parsed.success ? parsed.data : null;
}

function malformedError(endpoint: Endpoint, data: string): ModelError {
  return modelError(
    endpoint,
    "malformed",
    `the model server at ${displayUrl(endpoint.baseUrl)} sent something that is not a chat-completions chunk: ${oneLine(data, 120)}`,
  );
}

/** An error the server put into a stream it had started with 200. */
function streamError(endpoint: Endpoint, error: NonNullable<Chunk["error"]>, yielded: boolean): ModelError {
  const message = typeof error === "string" ? error : (error.message ?? "no reason given");
  const said = oneLine(message, 300);
  // The window filled while the model wrote: its kind says so, so that the history is compacted next.
  if (yielded) return saysContextOverflow(said) ? modelError(endpoint, "context_overflow", `${cutError(endpoint, said).message} (the conversation filled the model's window)`) : cutError(endpoint, said);
  const code = typeof error === "string" ? undefined : Number(error.code);
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  if (code === 429) return modelError(endpoint, "rate_limit", `${at} is limiting requests: ${said}`, code);
  if (code === 401 || code === 403) return modelError(endpoint, "auth", `${at} refused the request: ${said}`, code);
  if (saysContextOverflow(said)) return overflowError(endpoint, said, Number.isNaN(code) ? undefined : code);
  if (code !== undefined && code >= 400 && code < 500) return modelError(endpoint, "bad_request", `${at} rejected the request: ${said}`, code);
  return modelError(endpoint, "server", `${at} failed: ${said}`);
}

/** A server asking to wait longer than lembas waits by itself: said, not waited for. */
function asksTooLong(error: ModelError, waitMs: number): ModelError {
  return new ModelError(error.kind, `${error.message}; it asks to wait ${describeWait(waitMs)}, longer than lembas waits on its own: try again then`, error.status);
}

/** An `event: error` (or `error:` line) of the stream: a chunk with an error, the error object itself, or words. */
function errorEvent(endpoint: Endpoint, data: string, yielded: boolean): ModelError {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return streamError(endpoint, data.trim() || "no reason given", yielded);
  }
  const parsed = chunkSchema().safeParse(json);
  const failed = parsed.success ? chunkError(parsed.data) : null;
  if (failed) return streamError(endpoint, failed, yielded);
  if (typeof json !== "object" || json === null || !("message" in json) || typeof json.message !== "string") return streamError(endpoint, data, yielded);
  const code = "code" in json && (typeof json.code === "number" || typeof json.code === "string") ? json.code : null;
  return streamError(endpoint, { message: json.message, code }, yielded);
}

/** The notice for a request sent again without a field its server refused. */
function withoutField(error: ModelError, field: string): ModelError {
  return new ModelError(error.kind, `${error.message}; sending it without ${field}, which this server does not take`, error.status);
}

function triedTimes(error: ModelError, tries: number): ModelError {
  const advice = error.kind === "rate_limit" ? "; try again in a while" : "";
  return new ModelError(error.kind, `${error.message} (tried ${tries} times)${advice}`, error.status);
}
