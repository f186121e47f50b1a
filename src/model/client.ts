import { ChunkReader, Chunk, isWellFormedChunk } from "./chunks.ts";
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
  readBounded,
  serverMessage,
} from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { type ChatRequest, requestBody } from "./request.ts";
import { DEFAULT_RETRY, type RetryPolicy, parseRetryAfter, retryDelay } from "./retry.ts";
import { SseLineTooLong, sseBatches } from "./sse.ts";

/** Options of {@link streamChat}. */
export type StreamOptions = {
  /** Aborting stops the request, a retry's wait and the stream at once (an `aborted` error ends it). */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Defaults to the global fetch. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
};

/** How one try ended when it did not end well. */
type Failure = { error: ModelError; retryAfterMs: number | null; yielded: boolean };

/**
 * Streams one chat-completions reply from `POST {baseUrl}/chat/completions`.
 *
 * Never throws for a failed request: the last event is `finish`, or `error` with a
 * {@link ModelError}. Unreachable servers, 429 and 5xx (and a stream that dies before saying
 * anything) are retried with exponential backoff, honouring Retry-After, but only until the
 * first event of the reply was yielded; after that a failure ends the stream as `cut`.
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
  const body = JSON.stringify(requestBody(request, endpoint));
  const { signal } = options;
  for (let attempt = 0; ; attempt++) {
    const failure = yield* tryOnce(endpoint, request.model, body, options);
    if (failure === null) return;
    const { error } = failure;
    const retryable = error.retryable || (error.kind === "cut" && !failure.yielded);
    if (failure.yielded || !retryable || attempt >= policy.retries || signal?.aborted) {
      yield [{ type: "error", error: attempt > 0 && retryable ? triedTimes(error, attempt + 1) : error }];
      return;
    }
    const delayMs = retryDelay(policy, attempt + 1, failure.retryAfterMs);
    yield [{ type: "retry", attempt: attempt + 1, delayMs, error }];
    try {
      await policy.sleep(delayMs, signal);
    } catch {
      yield [{ type: "error", error: abortedError(endpoint) }];
      return;
    }
  }
}

async function* tryOnce(
  endpoint: Endpoint,
  model: string,
  body: string,
  options: StreamOptions,
): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const { signal } = options;
  const fetchFn = options.fetch ?? fetch;
  const fail = (error: ModelError, retryAfterMs: number | null = null): Failure => ({ error, retryAfterMs, yielded: false });
  let response: Response;
  try {
    response = await fetchFn(`${endpoint.baseUrl}/chat/completions`, { method: "POST", headers: headers(endpoint), body, signal: signal ?? null });
  } catch (cause) {
    return fail(networkError(endpoint, cause, signal));
  }
  if (!response.ok) {
    const text = await readBounded(response);
    if (signal?.aborted) return fail(abortedError(endpoint));
    return fail(httpError(endpoint, response.status, text, model), parseRetryAfter(response.headers.get("retry-after")));
  }
  if (response.headers.get("content-type")?.includes("application/json")) {
    const said = serverMessage(await readBounded(response));
    return fail(modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} answered with JSON, not a stream: ${said}`));
  }
  if (!response.body) return fail(cutError(endpoint, "the answer had no body"));
  return yield* readStream(endpoint, response.body, signal);
}

async function* readStream(
  endpoint: Endpoint,
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const reader = new ChunkReader();
  let events: ModelEvent[] = [];
  let yielded = false;
  let done = false;
  const fail = (error: ModelError): Failure => ({ error, retryAfterMs: null, yielded });
  try {
    for await (const batch of sseBatches(body)) {
      for (const data of batch) {
        if (data === "[DONE]") {
          done = true;
          break;
        }
        const chunk = parseChunk(data);
        if (chunk === null) return yield* failAfter(events, malformedError(endpoint, data));
        if (chunk.error) return yield* failAfter(events, streamError(endpoint, chunk.error, yielded || events.length > 0));
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
  const parsed = Chunk.safeParse(json);
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
  if (yielded) return cutError(endpoint, said);
  const code = typeof error === "string" ? undefined : Number(error.code);
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  if (code === 429) return modelError(endpoint, "rate_limit", `${at} is limiting requests: ${said}`, code);
  if (code === 401 || code === 403) return modelError(endpoint, "auth", `${at} refused the request: ${said}`, code);
  if (code !== undefined && code >= 400 && code < 500) return modelError(endpoint, "bad_request", `${at} rejected the request: ${said}`, code);
  return modelError(endpoint, "server", `${at} failed: ${said}`);
}

function triedTimes(error: ModelError, tries: number): ModelError {
  return new ModelError(error.kind, `${error.message} (tried ${tries} times)`, error.status);
}
