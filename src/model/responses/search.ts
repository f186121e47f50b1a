import type { Endpoint } from "../endpoint.ts";
import type { ModelError } from "../errors.ts";
import type { RetryPolicy } from "../retry.ts";
import type { RejectedFields } from "../request-fields.ts";
import { streamWire } from "../transport.ts";
import { type Found, responsesWire } from "./wire.ts";

/** What a provider's search found (the answer and its sources), or the error that ended it. */
export type ProviderSearch = { text: string; sources: Found["sources"] } | { error: ModelError };

/** What the side request asks of the model: search, and answer from what it found. */
export const SEARCH_INSTRUCTIONS =
  "Search the web for what the user asks, then answer from what you found: the facts, figures and versions as the sources give them, briefly. Cite your sources.";

/**
 * A web search by OpenAI's own tool (platform.openai.com/docs/guides/tools-web-search): a side
 * request to the same model with only `web_search` enabled, its sources asked for with
 * `include: ["web_search_call.action.sources"]` and read from the call and the text's citations.
 */
export async function responsesSearch(
  endpoint: Endpoint,
  model: string,
  query: string,
  options: { signal: AbortSignal; retry?: Partial<RetryPolicy>; rejectedFields?: RejectedFields },
): Promise<ProviderSearch> {
  const found: Found = { sources: [], searches: [] };
  const request = { model, messages: [{ role: "system" as const, content: SEARCH_INSTRUCTIONS }, { role: "user" as const, content: query }], effort: "low" as const };
  const wire = responsesWire(endpoint, request, {
    serverTools: [{ type: "web_search" }],
    include: ["web_search_call.action.sources"],
    found,
    ...(options.rejectedFields ? { rejectedFields: options.rejectedFields } : {}),
  });
  let text = "";
  for await (const batch of streamWire(endpoint, model, wire, { signal: options.signal, ...(options.retry ? { retry: options.retry } : {}) })) {
    for (const event of batch) {
      if (event.type === "text") text += event.delta;
      else if (event.type === "error") return { error: event.error };
    }
  }
  return { text, sources: found.sources };
}
