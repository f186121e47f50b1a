import type { ModelError } from "./errors.ts";

/**
 * Why a reply ended, in ACP's stop-reason words, with "tool_calls" kept apart so the engine
 * knows to run the tools and ask again (ACP itself calls that turn end `end_turn`).
 *
 * | finish_reason (any case)                              | FinishReason                     |
 * |---------------------------------------------------------|----------------------------------|
 * | stop, eos, eos_token, stop_sequence, end_turn           | end_turn (tool_calls if calls)   |
 * | tool_calls, function_call, tool_use                     | tool_calls                       |
 * | length, max_tokens, model_length                        | max_tokens                       |
 * | content_filter, refusal, safety, recitation, blocklist… | refusal                          |
 * | absent or anything else                                 | end_turn (tool_calls if calls)   |
 *
 * Where the words come from: `stop`/`length`/`tool_calls`/`content_filter`/`function_call` are
 * OpenAI's (platform.openai.com/docs/api-reference/chat/object); `eos`/`eos_token`/`stop_sequence`
 * are TGI's and older llama.cpp builds'; `tool_use`/`end_turn`/`max_tokens`/`stop_sequence` are
 * Anthropic's stop reasons, which some proxies pass through unmapped; `SAFETY`/`RECITATION`/
 * `BLOCKLIST`/`PROHIBITED_CONTENT`/`SPII` and `MAX_TOKENS` are Gemini's finishReason values
 * (ai.google.dev/api/generate-content#FinishReason); vLLM says `model_length` at the window's end.
 *
 * Some servers (older Ollama and llama.cpp builds, Gemini) say "stop" after streaming tool calls;
 * the calls are what counts, so such a reply maps to "tool_calls".
 */
export type FinishReason = "end_turn" | "tool_calls" | "max_tokens" | "refusal";

/**
 * A piece of a reply the provider needs back within the turn, opaque to the engine, tagged with
 * the API it came from: Messages' thinking and redacted_thinking blocks with their signatures,
 * Responses' reasoning items with their encrypted_content. Kept on the assistant message (its
 * record, then the next request's message) in the order they came, and sent back only to the API
 * that made them; the others ignore them.
 */
export type CarryItem = { api: "messages" | "responses"; item: Record<string, unknown> };

/**
 * Token counts of one model call. promptTokens counts every prompt token, those read from or
 * written to the provider's cache too; the optional counts say how many of them were
 * (Messages' cache_read/cache_creation_input_tokens, Responses' cached_tokens) and how many of the
 * completion's were reasoning (Responses' reasoning_tokens).
 */
export type Usage = { promptTokens: number; completionTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number };

/** One piece of a streamed reply. A stream's last event is always `finish` or `error`. */
export type ModelEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  /**
   * `index` is unique per call within one reply, even where the server reused one. `extra` is a
   * provider's own object on the call (Gemini's `extra_content`, holding its thought_signature),
   * kept to be sent back with the call.
   */
  | { type: "tool_call_delta"; index: number; id?: string; name?: string; argumentsDelta: string; extra?: Record<string, unknown> }
  | ({ type: "usage" } & Usage)
  | { type: "carry"; item: CarryItem }
  /** The request failed before any token and will be sent again after `delayMs`: retry `attempt` of at most `retries` of its kind. */
  | { type: "retry"; attempt: number; retries: number; delayMs: number; error: ModelError }
  | { type: "finish"; reason: FinishReason }
  | { type: "error"; error: ModelError };

export type ToolCallDelta = Extract<ModelEvent, { type: "tool_call_delta" }>;

/** Maps a server's finish_reason (see {@link FinishReason}). */
export function mapFinishReason(reason: string | null, sawToolCalls: boolean): FinishReason {
  switch (reason?.toLowerCase()) {
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "tool_calls";
    case "length":
    case "max_tokens":
    case "model_length":
      return "max_tokens";
    case "content_filter":
    case "refusal":
    case "safety":
    case "recitation":
    case "blocklist":
    case "prohibited_content":
    case "spii":
      return "refusal";
    default:
      return sawToolCalls ? "tool_calls" : "end_turn";
  }
}
