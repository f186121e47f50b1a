import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import { type ModelError, cutError, displayUrl, modelError, oneLine, overflowError } from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { saysContextOverflow } from "./overflow.ts";
import type { ChatRequest } from "./request.ts";
import { MemoryRejectedFields, type RejectedFields, connectionKey } from "./request-fields.ts";
import { SSE_ERROR_EVENT } from "./sse.ts";
import { type EventReader, pumpSse } from "./sse-pump.ts";
import { type Failure, type ReadContext, type StreamOptions, type Wire, streamWire } from "./transport.ts";
import { responsesBody } from "./responses-body.ts";
import { type ResponsesFailure, ResponsesReader } from "./responses-reader.ts";

/**
 * OpenAI's Responses API as a wire of transport.ts: `POST {base_url}/responses`, its events read by
 * {@link ResponsesReader}. A model that takes no reasoning (gpt-4.1 and kin when a person set
 * `api: responses`) refuses `reasoning` and the encrypted reasoning it would `include`: the request
 * goes again at once without them, and the connection's memo keeps that for its later requests.
 */
export function responsesWire(endpoint: Endpoint, request: ChatRequest, options: ResponsesWireOptions = {}): Wire {
  const memo = options.rejectedFields ?? new MemoryRejectedFields();
  const connection = connectionKey(endpoint);
  const plain = responsesBody(request, endpoint, options.serverTools);
  if (options.include) plain.include = [...(plain.include as string[]), ...options.include];
  const shaped = (): string => {
    if (!memo.get(connection, request.model).has(NO_REASONING) && endpoint.reasoning !== false) return JSON.stringify(plain);
    const { reasoning: _reasoning, include, ...rest } = plain;
    const kept = Array.isArray(include) ? include.filter((what) => what !== "reasoning.encrypted_content") : [];
    return JSON.stringify(kept.length > 0 ? { ...rest, include: kept } : rest);
  };
  let body = shaped();
  return {
    url: `${endpoint.baseUrl}/responses`,
    headers: { "content-type": "application/json", accept: "text/event-stream", ...endpointHeaders(endpoint) },
    body: () => body,
    read: (stream, context) => readResponses(stream, context, options.found),
    mend(failure) {
      const { error } = failure;
      // Once only: a request already without them that is refused so again is refused for another reason.
      if (error.kind !== "bad_request" || endpoint.reasoning === true || memo.get(connection, request.model).has(NO_REASONING)) return null;
      if (!REFUSES_REASONING.test(error.message)) return null;
      memo.add(connection, request.model, NO_REASONING);
      body = shaped();
      return modelError(endpoint, "bad_request", `${error.message}; sending it without reasoning, which this model does not take`, error.status);
    },
  };
}

export type ResponsesWireOptions = {
  rejectedFields?: RejectedFields;
  /** Provider tools besides the functions (`{ type: "web_search" }`). */
  serverTools?: readonly Record<string, unknown>[];
  /** More of the output to `include` (`web_search_call.action.sources`). */
  include?: readonly string[];
  /** Filled with what a web search of the reply found, once it ended well. */
  found?: Found;
};

/** What a reply's web searches found: the sources it read or cited, the queries it ran. */
export type Found = { sources: { url: string; title: string }[]; searches: string[] };

/** The memo's name for "this model takes no `reasoning` (nor its encrypted content)". */
const NO_REASONING = "responses:reasoning";

/** OpenAI's words when a model takes no reasoning: "Unsupported parameter: 'reasoning.effort'…", "Encrypted content is not supported with this model." */
const REFUSES_REASONING = /reasoning\.effort|encrypted content is not supported|reasoning.{0,40}not supported|unsupported parameter.{0,20}reasoning/i;

/** Reads one Responses stream: batches of events per network read; the failure, if it failed. */
export function readResponses(body: ReadableStream<Uint8Array>, context: ReadContext, found?: Found): AsyncGenerator<ModelEvent[], Failure | null, undefined> {
  return pumpSse(body, context, responsesEvents(context.endpoint, found));
}

/** Responses' events, for the pump: the stream's last word is its end event (no `[DONE]`); what a search found goes to `found`. */
function responsesEvents(endpoint: Endpoint, found?: Found): EventReader {
  const reader = new ResponsesReader();
  return {
    read(raw, events, said) {
      const data = raw.startsWith(SSE_ERROR_EVENT) ? raw.slice(SSE_ERROR_EVENT.length) : raw;
      if (data === "[DONE]") return null;
      if (!reader.read(data, events)) return malformed(endpoint, data);
      if (reader.failure) return failureError(endpoint, reader.failure, said);
      return reader.finished ? "last" : null;
    },
    get finished() {
      return reader.finished;
    },
    cut: "the stream ended before the response did",
    end() {
      if (found) {
        found.sources.push(...reader.sources);
        found.searches.push(...reader.searches);
      }
      return null;
    },
  };
}

function malformed(endpoint: Endpoint, data: string): ModelError {
  return modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} sent something that is not a Responses event: ${oneLine(data, 120)}`);
}

/**
 * A failure the stream reported, by its code (platform.openai.com/docs/guides/error-codes): before
 * any of the reply a rate limit or a server error is tried again, a full window compacts; after
 * some of it, the reply is cut there.
 */
export function failureError(endpoint: Endpoint, failure: ResponsesFailure, yielded: boolean): ModelError {
  const said = oneLine(failure.message, 300);
  const overflow = failure.code === "context_length_exceeded" || saysContextOverflow(said);
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  if (yielded) return overflow ? modelError(endpoint, "context_overflow", `${cutError(endpoint, said).message} (the conversation filled the model's window)`) : cutError(endpoint, said);
  if (overflow) return overflowError(endpoint, said);
  switch (failure.code) {
    case "rate_limit_exceeded":
      return modelError(endpoint, "rate_limit", `${at} is limiting requests: ${said}`, 429);
    case "insufficient_quota":
      return modelError(endpoint, "bad_request", `${at} refused the request: ${said}; check the account's plan and billing`, 429);
    case "invalid_api_key":
      return modelError(endpoint, "auth", `${at} refused the key: ${said}`, 401);
    case "invalid_prompt":
    case "invalid_request_error":
      return modelError(endpoint, "bad_request", `${at} rejected the request: ${said}`, 400);
    default:
      return modelError(endpoint, "server", `${at} failed: ${said}`);
  }
}

/** One Responses reply as ModelEvent batches: the transport's retries and idle watch over {@link responsesWire}. */
export function streamResponsesBatches(endpoint: Endpoint, request: ChatRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent[], void, undefined> {
  return streamWire(endpoint, request.model, responsesWire(endpoint, request, options.rejectedFields ? { rejectedFields: options.rejectedFields } : {}), options);
}
