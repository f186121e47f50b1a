import { type ModelError, abortedError, cutError, displayUrl, isAbort, modelError, networkReason } from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { SseLineTooLong, sseBatches } from "./sse.ts";
import type { Failure, ReadContext } from "./transport.ts";

/**
 * What a line said of the stream's end. `last`: the stream's last word, nothing after it is read
 * (chat's `[DONE]`, a Responses end). `last-read`: the reply is whole, the rest of this network read
 * is still read but nothing after it (Messages' `message_stop`: an error after it still counts).
 */
export type StreamEnd = "last" | "last-read";

/** One API's reading of its stream's events, for {@link pumpSse}: all that differs between the wires. */
export type EventReader = {
  /**
   * Reads one event's data (an `error` event's marked with SSE_ERROR_EVENT) into `events`. An error
   * ends the reply there, what the read gave before it given first. `said`: some of the reply was read.
   */
  read(data: string, events: ModelEvent[], said: boolean): ModelError | StreamEnd | null;
  /** The reply is whole: a connection lost now lost at most its usage, and the stream may end without more. */
  readonly finished: boolean;
  /** Why a stream that ended before it said its last word is cut ("the stream ended before the reply did"). */
  readonly cut: string;
  /** The end of a reply that ended well: its closing events appended, or the error it ended with. */
  end(events: ModelEvent[], said: boolean): ModelError | null;
};

/**
 * Reads a 200 answer's server-sent events through `reader`: a batch of events per network read
 * (the abort checked before each is given), a failure as transport.ts retries or ends it. A line
 * too long, an abort, a lost connection and a stream ending early are the same for every API.
 */
export async function* pumpSse(body: ReadableStream<Uint8Array>, context: ReadContext, reader: EventReader): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  const { endpoint, signal, watch } = context;
  let events: ModelEvent[] = [];
  let yielded = false;
  let ended = false;
  const fail = (error: ModelError): Failure => ({ error, retryAfterMs: null, yielded });
  /** Gives what the read gave before the failure, then the failure (as the per-event stream would). */
  async function* failAfter(error: ModelError): AsyncGenerator<ModelEvent[], Failure, undefined> {
    if (events.length > 0) {
      if (signal?.aborted) return fail(abortedError(endpoint));
      yielded = true;
      yield events;
    }
    return fail(error);
  }
  try {
    for await (const batch of sseBatches(body, watch)) {
      for (const data of batch) {
        const read = reader.read(data, events, yielded || events.length > 0);
        if (read === null) continue;
        if (read === "last-read") {
          ended = true;
          continue;
        }
        if (read === "last") {
          ended = true;
          break;
        }
        return yield* failAfter(read);
      }
      if (events.length > 0) {
        if (signal?.aborted) return fail(abortedError(endpoint));
        yielded = true;
        yield events;
        events = [];
      }
      if (ended) break;
    }
  } catch (cause) {
    if (signal?.aborted || isAbort(cause)) return fail(abortedError(endpoint));
    if (cause instanceof SseLineTooLong) return fail(modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} sent ${cause.message}`));
    if (!reader.finished) return fail(cutError(endpoint, networkReason(cause)));
  }
  if (!ended && !reader.finished) return yield* failAfter(cutError(endpoint, reader.cut));
  const failed = reader.end(events, yielded || events.length > 0);
  if (failed) return yield* failAfter(failed);
  if (events.length > 0) yield events;
  return null;
}
