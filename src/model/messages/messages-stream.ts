import { type Endpoint, endpointHeaders } from "../endpoint.ts";
import { type ModelError, cutError, displayUrl, modelError, oneLine, overflowError } from "../errors.ts";
import type { ModelEvent } from "../events.ts";
import { saysContextOverflow } from "../overflow.ts";
import type { ChatRequest } from "../request.ts";
import { SSE_ERROR_EVENT } from "../sse.ts";
import { type EventReader, pumpSse } from "../sse-pump.ts";
import { fitToolCallIds } from "../tool-call-ids.ts";
import { type StreamOptions, type Wire, streamWire } from "../transport.ts";
import { messagesBody, type ServerTool } from "./messages-body.ts";
import { type ErrorObject, MessagesReader, type StreamEvent } from "./messages-reader.ts";

/** Messages' rule for tool_use ids (docs.anthropic.com/en/api/messages: `^[a-zA-Z0-9_-]+$`): ids made elsewhere are fitted. */
const TOOL_USE_ID = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, length: 24 };

/**
 * Streams one reply from Anthropic's Messages API, `POST {baseUrl}/messages`, over the same
 * transport as chat completions (transport.ts: retries of 429, 5xx and 529, the idle watch,
 * abort). Never throws for a failed request: the last event is `finish` or `error`.
 */
export function streamMessagesBatches(endpoint: Endpoint, request: ChatRequest, options: StreamOptions = {}, search?: ServerSearch): AsyncGenerator<ModelEvent[], void, undefined> {
  const text = JSON.stringify(messagesBody({ ...request, messages: fitToolCallIds(request.messages, TOOL_USE_ID) }, endpoint, search?.tools));
  const wire: Wire = {
    url: `${endpoint.baseUrl}/messages`,
    headers: { "content-type": "application/json", accept: "text/event-stream", ...endpointHeaders(endpoint) },
    body: () => text,
    read: (stream, context) => pumpSse(stream, context, messagesEvents(endpoint, search?.found)),
  };
  return streamWire(endpoint, request.model, wire, options);
}

/** A side request's server tools (web search, model/provider-search.ts), and where the sources it read go. */
export type ServerSearch = { tools: readonly ServerTool[]; found: { sources: { url: string; title: string }[] } };

/** Messages' events, for the pump: the reply is whole at `message_stop`; the sources it read go to `found`. */
function messagesEvents(endpoint: Endpoint, found?: ServerSearch["found"]): EventReader {
  const reader = new MessagesReader();
  return {
    read(data, events, said) {
      const named = data.startsWith(SSE_ERROR_EVENT);
      const event = parseEvent(named ? data.slice(SSE_ERROR_EVENT.length) : data);
      if (event === null) {
        if (named) return streamError(endpoint, { message: data.slice(SSE_ERROR_EVENT.length).trim() || "no reason given" }, said);
        return modelError(endpoint, "malformed", `the model server at ${displayUrl(endpoint.baseUrl)} sent something that is not a Messages stream event: ${oneLine(data, 120)}`);
      }
      const failed = reader.read(named && event.type !== "error" ? { type: "error", ...(event.error ? { error: event.error } : {}) } : event, events);
      if (failed) return streamError(endpoint, failed, said);
      return reader.finished ? "last-read" : null;
    },
    get finished() {
      return reader.finished;
    },
    cut: "the stream ended before the reply did (no message_stop)",
    end(events) {
      reader.end(events);
      found?.sources.push(...reader.sources);
      return null;
    },
  };
}

function parseEvent(data: string): StreamEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof json !== "object" || json === null || !("type" in json) || typeof json.type !== "string") return null;
  if ("index" in json && typeof json.index !== "number") return null;
  return json as StreamEvent;
}

/**
 * An `error` event (docs.anthropic.com/en/api/errors: overloaded_error, api_error, rate_limit_error…).
 * Before anything of the reply was given it is retried as its HTTP status would be; after, the
 * reply ends there with what it said.
 */
function streamError(endpoint: Endpoint, error: ErrorObject, yielded: boolean): ModelError {
  const said = oneLine(`${error.message ?? "no reason given"}${error.type ? ` (${error.type})` : ""}`, 300);
  const at = `the model server at ${displayUrl(endpoint.baseUrl)}`;
  if (yielded) return saysContextOverflow(said) ? modelError(endpoint, "context_overflow", `${cutError(endpoint, said).message} (the conversation filled the model's window)`) : cutError(endpoint, said);
  if (saysContextOverflow(said)) return overflowError(endpoint, said);
  switch (error.type) {
    case "overloaded_error":
      return modelError(endpoint, "server", `${at} is overloaded: ${said}`, 529);
    case "rate_limit_error":
      return modelError(endpoint, "rate_limit", `${at} is limiting requests: ${said}`, 429);
    case "authentication_error":
    case "permission_error":
      return modelError(endpoint, "auth", `${at} refused the request: ${said}${endpoint.authHint ? `; ${endpoint.authHint}` : ""}`, 401);
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return modelError(endpoint, "bad_request", `${at} rejected the request: ${said}`, 400);
    default:
      return modelError(endpoint, "server", `${at} failed: ${said}`);
  }
}
