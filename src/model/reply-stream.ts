import { modelApi } from "./apis.ts";
import { streamChatBatches } from "./client.ts";
import type { Endpoint } from "./endpoint.ts";
import type { ModelEvent } from "./events.ts";
import { streamMessagesBatches } from "./messages/messages-stream.ts";
import type { ChatRequest } from "./request.ts";
import type { StreamOptions } from "./transport.ts";
import { streamResponsesBatches } from "./responses-wire.ts";

/**
 * Streams one reply in the API the endpoint speaks for the model (apis.ts): chat completions,
 * Messages or Responses, each giving the same {@link ModelEvent} batches (a batch per network
 * read). Never throws for a failed request: the last event is `finish` or `error`.
 */
export function streamModelBatches(endpoint: Endpoint, request: ChatRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent[], void, undefined> {
  switch (modelApi(endpoint, request.model)) {
    case "chat":
      return streamChatBatches(endpoint, request, options);
    case "messages":
      return streamMessagesBatches(endpoint, request, options);
    case "responses":
      return streamResponsesBatches(endpoint, request, options);
  }
}

/** {@link streamModelBatches}, one event at a time (side calls, tests). */
export async function* streamModel(endpoint: Endpoint, request: ChatRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent, void, undefined> {
  for await (const batch of streamModelBatches(endpoint, request, options)) yield* batch;
}
