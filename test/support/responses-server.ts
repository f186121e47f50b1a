/**
 * `POST /v1/responses` for the scripted model (model.ts mounts it through `routes`): replays
 * Responses streams (test/model/fixtures/responses.ts, or one made here from text, reasoning and
 * calls) and records every request body.
 *
 * ```ts
 * const responses = responsesRoute([answer({ reasoning, calls }), answer({ text: "done" })]);
 * const model = await startModel({ routes: [responses] });
 * ```
 */
import { completed, created, functionCall, message, reasoning, webSearch } from "../model/fixtures/responses/streams.ts";
import { FixtureRoute, type Replay } from "./fixture-route.ts";

/** A Responses route replaying `replays` in order, then (when given) `fallback` every time. */
export function responsesRoute(replays: Replay[], fallback: Replay | null = null): FixtureRoute {
  return new FixtureRoute("/responses", replays, fallback);
}

/**
 * A stream made of these, in this order: a reasoning item (its summary and encrypted content), a
 * web search with its sources, text (with `citations` as url_citation annotations), function calls.
 */
export function answer(parts: {
  reasoning?: { summary: string; encrypted: string };
  search?: { query: string; sources: { url: string; title?: string }[] };
  text?: string;
  citations?: { url: string; title: string }[];
  calls?: { id: string; name: string; arguments: object }[];
  usage?: { input: number; output: number; cached?: number; reasoning?: number };
}): string {
  let at = 0;
  let body = created();
  if (parts.reasoning) body += reasoning(at++, [parts.reasoning.summary], parts.reasoning.encrypted);
  if (parts.search) body += webSearch(at++, parts.search.query, parts.search.sources);
  if (parts.text) {
    const text = parts.text;
    body += message(at++, [text], (parts.citations ?? []).map((c) => ({ type: "url_citation", start_index: 0, end_index: text.length, ...c })));
  }
  for (const call of parts.calls ?? []) body += functionCall(at++, call.id, call.name, [JSON.stringify(call.arguments)]);
  return body + completed(parts.usage ?? { input: 100, output: 20 });
}

/** An OpenAI-shaped error body (platform.openai.com/docs/guides/error-codes). */
export function openAiErrorBody(message: string, code: string, type = "invalid_request_error"): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}
