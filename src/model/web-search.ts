import type { ModelApi } from "./apis.ts";
import type { Endpoint } from "./endpoint.ts";
import { modelError } from "./errors.ts";
import type { RejectedFields } from "./request-fields.ts";
import type { RetryPolicy } from "./retry.ts";
import { type ProviderSearch, responsesSearch } from "./responses/search.ts";

export type { ProviderSearch };

/** The provider's own search tool of an API, as a person reads it; null: chat completions has none. */
export function providerSearchName(api: ModelApi): string | null {
  if (api === "responses") return "OpenAI's web_search tool";
  return null;
}

/** A web search by the provider's own tool, in a side request to the same model. */
export function providerSearch(
  api: ModelApi,
  endpoint: Endpoint,
  model: string,
  query: string,
  options: { signal: AbortSignal; retry?: Partial<RetryPolicy>; rejectedFields?: RejectedFields },
): Promise<ProviderSearch> {
  if (api === "responses") return responsesSearch(endpoint, model, query, options);
  return Promise.resolve({ error: modelError(endpoint, "bad_request", `connection "${endpoint.name}" speaks chat completions, which has no search tool of its own`) });
}
