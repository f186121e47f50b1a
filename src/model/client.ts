import { ChunkReader, type Chunk, chunkError, chunkSchema, isWellFormedChunk } from "./chunks.ts";
import { type Endpoint, endpointHeaders } from "./endpoint.ts";
import { ModelError, cutError, displayUrl, modelError, oneLine, overflowError } from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import { saysContextOverflow } from "./overflow.ts";
import { type ChatRequest, requestBody } from "./request.ts";
import { dialectById } from "./dialects.ts";
import { MemoryRejectedFields, connectionKey, refusedField, shapeBody } from "./request-fields.ts";
import { fitToolCallIds } from "./tool-call-ids.ts";
import { type StreamOptions, type Wire, streamWire } from "./transport.ts";
import { SSE_ERROR_EVENT } from "./sse.ts";
import { type EventReader, pumpSse } from "./sse-pump.ts";

export type { StreamOptions };

/**
 * Streams one chat-completions reply from `POST {baseUrl}/chat/completions` (transport.ts's
 * retries, idle watch and errors). Never throws for a failed request: the last event is `finish`,
 * or `error` with a {@link ModelError}.
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
export function streamChatBatches(
  endpoint: Endpoint,
  request: ChatRequest,
  options: StreamOptions = {},
): AsyncGenerator<ModelEvent[], void, undefined> {
  // A field the server refuses is dropped, remembered, and the request sent again at once.
  const memo = options.rejectedFields ?? new MemoryRejectedFields();
  const connection = connectionKey(endpoint);
  // What the server's family is known to refuse is never sent, and its tool-call id rule is kept.
  const dialect = dialectById(endpoint.dialect);
  const knownRefused = () => (dialect.refuses.length === 0 ? memo.get(connection, request.model) : new Set([...dialect.refuses, ...memo.get(connection, request.model)]));
  const plain = requestBody({ ...request, messages: fitToolCallIds(request.messages, dialect.toolCallId) }, endpoint);
  let body = shapeBody(plain, knownRefused(), endpoint.reasoning);
  const wire: Wire = {
    url: `${endpoint.baseUrl}/chat/completions`,
    headers: headers(endpoint),
    body: () => body.text,
    read: (stream, context) => pumpSse(stream, context, chatEvents(context.endpoint)),
    mend: (failure) => {
      const refused = refusedField(failure.error, body.fields, endpoint.reasoning);
      if (refused === null) return null;
      memo.add(connection, request.model, refused);
      body = shapeBody(plain, knownRefused(), endpoint.reasoning);
      return withoutField(failure.error, refused);
    },
  };
  return streamWire(endpoint, request.model, wire, options);
}

/** Chat completions' chunks, for the pump: a stream may end at `[DONE]` or once a choice finished (its usage may follow). */
function chatEvents(endpoint: Endpoint): EventReader {
  const reader = new ChunkReader();
  return {
    read(data, events, said) {
      if (data === "[DONE]") return "last";
      if (data.startsWith(SSE_ERROR_EVENT)) return errorEvent(endpoint, data.slice(SSE_ERROR_EVENT.length), said);
      const chunk = parseChunk(data);
      if (chunk === null) return malformedError(endpoint, data);
      const failed = chunkError(chunk);
      if (failed) return streamError(endpoint, failed, said);
      reader.read(chunk, events);
      return null;
    },
    get finished() {
      return reader.finished;
    },
    cut: "the stream ended before the reply did",
    end(events, said) {
      if (reader.failed) return streamError(endpoint, "the server ended the reply with an error", said);
      reader.end(events);
      return null;
    },
  };
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
