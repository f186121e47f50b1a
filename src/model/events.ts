import type { ModelError } from "./errors.ts";

/**
 * Why a reply ended, in ACP's stop-reason words, with "tool_calls" kept apart so the engine
 * knows to run the tools and ask again (ACP itself calls that turn end `end_turn`).
 *
 * | finish_reason                 | FinishReason                                 |
 * |-------------------------------|----------------------------------------------|
 * | stop                          | end_turn (tool_calls if tool calls streamed) |
 * | tool_calls, function_call     | tool_calls                                   |
 * | length                        | max_tokens                                   |
 * | content_filter                | refusal                                      |
 * | absent or anything else       | end_turn (tool_calls if tool calls streamed) |
 *
 * Some servers (older Ollama and llama.cpp builds) say "stop" after streaming tool calls; the
 * calls are what counts, so such a reply maps to "tool_calls".
 */
export type FinishReason = "end_turn" | "tool_calls" | "max_tokens" | "refusal";

/** One piece of a streamed reply. A stream's last event is always `finish` or `error`. */
export type ModelEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  /** `index` is unique per call within one reply, even where the server reused one. */
  | { type: "tool_call_delta"; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: "usage"; promptTokens: number; completionTokens: number }
  /** The request failed before any token and will be sent again after `delayMs`: retry `attempt` of at most `retries` of its kind. */
  | { type: "retry"; attempt: number; retries: number; delayMs: number; error: ModelError }
  | { type: "finish"; reason: FinishReason }
  | { type: "error"; error: ModelError };

export type ToolCallDelta = Extract<ModelEvent, { type: "tool_call_delta" }>;

/** Maps a server's finish_reason (see {@link FinishReason}). */
export function mapFinishReason(reason: string | null, sawToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return sawToolCalls ? "tool_calls" : "end_turn";
  }
}

/** ACP's stop reason for a finished reply: a tool-call reply ends its model turn normally. */
export function acpStopReason(reason: FinishReason): "end_turn" | "max_tokens" | "refusal" {
  return reason === "tool_calls" ? "end_turn" : reason;
}
