/**
 * Which of the three model APIs a connection speaks: OpenAI-compatible chat completions (every
 * server), Anthropic's Messages, or OpenAI's Responses. config.yaml's `api` under a connection
 * says it; unset, the host says it (api.anthropic.com speaks Messages; api.openai.com Responses for
 * the models served only there, chat completions for the rest), and anything else is chat.
 */
import { MODEL_APIS, type ModelApiName } from "../config/key-values.ts";

export { MODEL_APIS };
export type ModelApi = ModelApiName;

/**
 * OpenAI's models served only by the Responses API (platform.openai.com/docs/models: the pro,
 * codex, deep-research and computer-use models say "v1/responses" alone under their endpoints).
 */
const RESPONSES_ONLY: readonly RegExp[] = [/codex/i, /(^|-)pro($|-)/i, /deep-research/i, /computer-use/i];

/** The host's own API, when it has one other than chat completions for every model. */
export function hostApi(baseUrl: string): ModelApi | null {
  const host = hostOf(baseUrl);
  if (host === "api.anthropic.com") return "messages";
  return null;
}

/** What a connection's requests for `model` speak: config.yaml's `api`, else its host's, else chat. */
export function modelApi(endpoint: { api?: ModelApi | undefined; baseUrl: string }, model: string): ModelApi {
  if (endpoint.api !== undefined) return endpoint.api;
  if (hostOf(endpoint.baseUrl) === "api.openai.com" && RESPONSES_ONLY.some((p) => p.test(model))) return "responses";
  return "chat";
}

/** The API's name as `lembas models` and `doctor` say it. */
export function apiLabel(api: ModelApi): string {
  return api === "chat" ? "chat completions" : api === "messages" ? "Anthropic Messages" : "OpenAI Responses";
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}
