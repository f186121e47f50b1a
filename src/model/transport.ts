import type { Endpoint } from "./endpoint.ts";
import {
  ModelError,
  abortedError,
  cutError,
  displayUrl,
  httpError,
  modelError,
  networkError,
  readBounded,
  serverMessage,
  silenceError,
} from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { IdleWatch, type IdleLimits, idleLimits } from "./idle.ts";
import type { RejectedFields } from "./request-fields.ts";
import { DEFAULT_RETRY, type RetryPolicy, describeWait, retryDelay, serverWait } from "./retry.ts";

/** Options of a model stream (chat completions, Messages, Responses alike). */
export type StreamOptions = {
  /** Aborting stops the request, a retry's wait and the stream at once (an `aborted` error ends it). */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Defaults to the global fetch. */
  fetch?: (input: string, init: BunFetchRequestInit) => Promise<Response>;
  /** What each connection's models refused (ResolvedModel.rejectedFields); none given: this call's own memo. */
  rejectedFields?: RejectedFields;
};

/** How one try ended when it did not end well; `yielded`: some of the reply was already given. */
export type Failure = { error: ModelError; retryAfterMs: number | null; yielded: boolean };

/** What a stream reader is given besides the body. */
export type ReadContext = { endpoint: Endpoint; signal: AbortSignal | undefined; watch: IdleWatch };

/**
 * One API's side of a streamed request: where it goes, what is sent, how its stream is read. The
 * transport (retries, the idle watch, HTTP errors, abort) is the same for every API.
 */
export type Wire = {
  /** The full URL posted to. */
  url: string;
  headers: Record<string, string>;
  /** The body as it is sent now (a wire that drops a refused field changes it). */
  body(): string;
  /** Reads a 200 answer's events into batches; returns null when the reply ended well, else how it failed. */
  read(body: ReadableStream<Uint8Array>, context: ReadContext): AsyncGenerator<ModelEvent[], Failure | null, undefined>;
  /**
   * A failure the wire mends by changing its body (chat's refused fields): the notice of sending
   * it again at once, or null when it is not one.
   */
  mend?(failure: Failure): ModelError | null;
};

/**
 * Streams one reply over `wire`, a batch of events per network read.
 *
 * Never throws for a failed request: the last event is `finish`, or `error` with a
 * {@link ModelError}. Unreachable servers, 429 and 5xx (and a stream that dies or falls silent
 * before saying anything: idle.ts) are retried with backoff and jitter, honouring the server's
 * Retry-After, but only until the first event of the reply was yielded; after that a failure
 * ends the stream (`cut`, or `timeout` for silence) with what it said kept.
 */
export async function* streamWire(endpoint: Endpoint, model: string, wire: Wire, options: StreamOptions = {}): AsyncGenerator<ModelEvent[], void, undefined> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const limits = idleLimits(endpoint.idle);
  const { signal } = options;
  const used = { timeout: 0, unreachable: 0, other: 0 };
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    const failure = yield* tryOnce(endpoint, model, wire, options, limits);
    if (failure === null) return;
    const { error } = failure;
    const mended = failure.yielded ? null : (wire.mend?.(failure) ?? null);
    if (mended !== null) {
      yield [{ type: "retry", attempt: 1, retries: 1, delayMs: 0, error: mended }];
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
async function* tryOnce(endpoint: Endpoint, model: string, wire: Wire, options: StreamOptions, limits: IdleLimits): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const watch = new IdleWatch(limits, options.signal);
  try {
    const failure = yield* tryWatched(endpoint, model, wire, options, watch);
    if (failure === null || watch.timedOut === null || options.signal?.aborted) return failure;
    return { ...failure, error: silenceError(endpoint, watch.timedOut.afterMs, failure.yielded, endpoint.idle?.hint) };
  } finally {
    watch.stop();
  }
}

async function* tryWatched(endpoint: Endpoint, model: string, wire: Wire, options: StreamOptions, watch: IdleWatch): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const { signal } = options;
  const fetchFn = options.fetch ?? fetch;
  const fail = (error: ModelError, retryAfterMs: number | null = null): Failure => ({ error, retryAfterMs, yielded: false });
  let response: Response;
  try {
    // Bun's own socket timeout (5 min) is off: the watch is the one timeout, and says so.
    response = await fetchFn(wire.url, { method: "POST", headers: wire.headers, body: wire.body(), signal: watch.signal, timeout: false });
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
  return yield* wire.read(response.body, { endpoint, signal, watch });
}

/** A server asking to wait longer than lembas waits by itself: said, not waited for. */
function asksTooLong(error: ModelError, waitMs: number): ModelError {
  return new ModelError(error.kind, `${error.message}; it asks to wait ${describeWait(waitMs)}, longer than lembas waits on its own: try again then`, error.status);
}

function triedTimes(error: ModelError, tries: number): ModelError {
  const advice = error.kind === "rate_limit" ? "; try again in a while" : "";
  return new ModelError(error.kind, `${error.message} (tried ${tries} times)${advice}`, error.status);
}
