import type { ModelApi } from "./apis.ts";
import type { Endpoint } from "./endpoint.ts";
import { type ModelError, modelError } from "./errors.ts";
import type { ModelEvent } from "./events.ts";
import type { ChatRequest } from "./request.ts";
import type { RejectedFields } from "./request-fields.ts";
import type { RetryPolicy } from "./retry.ts";
import { streamWire } from "./transport.ts";

// The wires are loaded with the first search: a one-shot's start never needs them (reply-stream.ts).
const messagesWire = () => require("./messages/messages-stream.ts") as typeof import("./messages/messages-stream.ts");
const responsesWire = () => require("./responses-wire.ts") as typeof import("./responses-wire.ts");

/** What a provider's search found (the answer and its sources), or the error that ended it. */
export type ProviderSearch = { text: string; sources: { url: string; title: string }[] } | { error: ModelError };

export type SearchOptions = { signal: AbortSignal; retry?: Partial<RetryPolicy>; rejectedFields?: RejectedFields };

/** What the side request asks of the model: search, and answer from what it found. */
const SEARCH_INSTRUCTIONS =
  "Search the web for what the user asks, then answer from what you found: the facts, figures and versions as the sources give them, briefly. Cite your sources.";

/** Messages' web search tool (docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool), a few searches at most. */
const MESSAGES_WEB_SEARCH = { type: "web_search_20250305", name: "web_search", max_uses: 3 };

/** The provider's own search tool of an API, as a person reads it; null: chat completions has none. */
export function providerSearchName(api: ModelApi): string | null {
  if (api === "responses") return "OpenAI's web_search tool";
  if (api === "messages") return "Anthropic's web search tool";
  return null;
}

/**
 * A web search by the provider's own tool: a side request to the same model with only that tool
 * enabled (OpenAI's `web_search`, platform.openai.com/docs/guides/tools-web-search, its sources
 * asked for with `include`; Anthropic's web search tool), the answer it writes and the sources it
 * read or cited.
 */
export function providerSearch(api: ModelApi, endpoint: Endpoint, model: string, query: string, options: SearchOptions): Promise<ProviderSearch> {
  const request: ChatRequest = { model, messages: [{ role: "system", content: SEARCH_INSTRUCTIONS }, { role: "user", content: query }], effort: "low" };
  const found = { sources: [] as { url: string; title: string }[], searches: [] as string[] };
  const stream = { signal: options.signal, ...(options.retry ? { retry: options.retry } : {}), ...(options.rejectedFields ? { rejectedFields: options.rejectedFields } : {}) };
  if (api === "responses") {
    const wire = responsesWire().responsesWire(endpoint, request, { serverTools: [{ type: "web_search" }], include: ["web_search_call.action.sources"], found, ...(options.rejectedFields ? { rejectedFields: options.rejectedFields } : {}) });
    return collect(streamWire(endpoint, model, wire, stream), found);
  }
  if (api === "messages") return collect(messagesWire().streamMessagesBatches(endpoint, { ...request, effort: "off" }, stream, { tools: [MESSAGES_WEB_SEARCH], found }), found);
  return Promise.resolve({ error: modelError(endpoint, "bad_request", `connection "${endpoint.name}" speaks chat completions, which has no search tool of its own`) });
}

/** The text of a side request's reply and the sources found, or its error. */
async function collect(batches: AsyncGenerator<ModelEvent[], void, undefined>, found: { sources: { url: string; title: string }[] }): Promise<ProviderSearch> {
  let text = "";
  for await (const batch of batches) {
    for (const event of batch) {
      if (event.type === "text") text += event.delta;
      else if (event.type === "error") return { error: event.error };
    }
  }
  return { text, sources: found.sources };
}
