import { modelApi } from "./apis.ts";
import { streamChatBatches } from "./client.ts";
import type { Endpoint } from "./endpoint.ts";
import type { ModelEvent } from "./events.ts";
import type { ChatRequest } from "./request.ts";
import type { StreamOptions } from "./transport.ts";

// The Messages and Responses wires are loaded with the first reply that needs one: a chat
// completions connection never pays for their modules in its start (bench/RUN.md).
const messagesWire = () => require("./messages/messages-stream.ts") as typeof import("./messages/messages-stream.ts");
const responsesWire = () => require("./responses-wire.ts") as typeof import("./responses-wire.ts");

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
      return messagesWire().streamMessagesBatches(endpoint, request, options);
    case "responses":
      return responsesWire().streamResponsesBatches(endpoint, request, options);
  }
}

/** {@link streamModelBatches}, one event at a time (side calls, tests). */
export async function* streamModel(endpoint: Endpoint, request: ChatRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent, void, undefined> {
  for await (const batch of streamModelBatches(endpoint, request, options)) yield* batch;
}
