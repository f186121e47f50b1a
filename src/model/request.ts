import type { Effort } from "../config/schema.ts";
import type { CarryItem } from "./events.ts";

/** A part of a user message: text, or an image as a URL (a data: URL for a local file). */
export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/**
 * A tool call an assistant message made, as it is sent back to the server; `extra_content` is
 * the provider's own object as it came with the call (Gemini's thought_signature must come back:
 * ai.google.dev/gemini-api/docs/thought-signatures).
 */
export type AssistantToolCall = { id: string; type: "function"; function: { name: string; arguments: string }; extra_content?: Record<string, unknown> };

/** A chat message in the OpenAI chat-completions format. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  /** `carry`: what a Messages or Responses reply needs back (events.ts CarryItem); never sent to chat completions. */
  | { role: "assistant"; content: string | null; tool_calls?: AssistantToolCall[]; reasoning_content?: string; carry?: CarryItem[] }
  /** `failed`: the call failed (Messages sends it as `is_error`); never sent to chat completions. */
  | { role: "tool"; tool_call_id: string; content: string; failed?: true };

/** A tool the model may call; `parameters` is a JSON Schema object. */
export type ToolSpec = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
};

/** One model request, in chat-completions terms (each API's body is built from it). */
export type ChatRequest = {
  /** The id the endpoint serves the model as (a ref's servedId). */
  model: string;
  messages: ChatMessage[];
  /** Omitted from the request when absent or empty. */
  tools?: ToolSpec[];
  /** Sent as reasoning_effort unless "off". */
  effort: Effort;
  maxTokens?: number;
};

/** What a connection adds to every request (config.yaml's body and max_output; see endpoint.ts). */
export type BodyExtras = { body?: Record<string, unknown>; maxOutput?: number };

/** The JSON body of a streaming request; the connection's body fields are merged in last (top level: theirs win). */
export function requestBody(request: ChatRequest, extras: BodyExtras = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: request.messages.some(hasOwnFields) ? request.messages.map(withoutOwnFields) : request.messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) body.tools = request.tools;
  if (request.effort !== "off") body.reasoning_effort = request.effort;
  const maxTokens = request.maxTokens ?? extras.maxOutput;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  return extras.body ? Object.assign(body, extras.body) : body;
}

function hasOwnFields(message: ChatMessage): boolean {
  return (message.role === "assistant" && message.carry !== undefined) || (message.role === "tool" && message.failed !== undefined);
}

/** A message as chat completions is sent it: without what only another API reads. */
function withoutOwnFields(message: ChatMessage): ChatMessage {
  if (message.role === "tool" && message.failed !== undefined) {
    const { failed: _failed, ...rest } = message;
    return rest;
  }
  if (message.role !== "assistant" || message.carry === undefined) return message;
  const { carry: _carry, ...rest } = message;
  return rest;
}
