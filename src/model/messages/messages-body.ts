import type { Effort } from "../../config/schema.ts";
import { claudeModel } from "../claude-models.ts";
import { withoutThinkingConflicts } from "./thinking-fields.ts";
import type { BodyExtras, ChatMessage, ChatRequest, ContentPart, ToolSpec } from "../request.ts";

/**
 * The body of a streamed Messages request (docs.anthropic.com/en/api/messages), from the engine's
 * chat-shaped request: the system prompt as `system`; tool results as the next user message's
 * `tool_result` blocks; an assistant message's carried thinking blocks (with their signatures)
 * first, then its text and its `tool_use` blocks; images as `image` blocks.
 *
 * Three cache breakpoints (docs.anthropic.com/en/docs/build-with-claude/prompt-caching): the
 * last tool, the system prompt and the conversation's last block. The cache looks back from a
 * breakpoint for the longest prefix it holds, so each step after the first reads all the steps
 * before it from the cache and writes only what it adds.
 */

type Block = Record<string, unknown>;
type Message = { role: "user" | "assistant"; content: Block[] };

/** Tokens of thinking each effort allows (extended thinking's budget_tokens; 1024 is the least it takes). */
export const THINKING_BUDGET: Record<Exclude<Effort, "off">, number> = { low: 2_048, medium: 8_192, high: 24_576 };
const MIN_BUDGET = 1_024;
const CACHE = { type: "ephemeral" } as const;

/**
 * The tools the provider runs itself (Messages' web search: docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool),
 * given whole, as `{ type: "web_search_20250305", name: "web_search", … }`; they go after the
 * engine's function tools.
 */
export type ServerTool = Record<string, unknown>;

export function messagesBody(request: ChatRequest, extras: BodyExtras = {}, serverTools: readonly ServerTool[] = []): Record<string, unknown> {
  const known = claudeModel(request.model);
  // The connection's body is merged in last, so its max_tokens is the one sent: the budget stays below it.
  const fromBody = extras.body?.max_tokens;
  const maxTokens = typeof fromBody === "number" && Number.isInteger(fromBody) && fromBody > 0 ? fromBody : (request.maxTokens ?? extras.maxOutput ?? known.maxOutput);
  const body: Record<string, unknown> = { model: request.model, max_tokens: maxTokens, stream: true };
  const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : [])).join("\n\n");
  if (system) body.system = [{ type: "text", text: system, cache_control: CACHE }];
  const messages = toMessages(request.messages);
  markTail(messages);
  body.messages = messages;
  const tools: Block[] = [...(request.tools ?? []).map(toTool), ...serverTools];
  const last = tools.at(-1);
  if (last) {
    tools[tools.length - 1] = { ...last, cache_control: CACHE };
    body.tools = tools;
  }
  const budget = thinksNow(messages) ? thinkingBudget(request.effort, maxTokens, known.thinks) : null;
  if (budget === null) return extras.body ? Object.assign(body, extras.body) : body;
  body.thinking = { type: "enabled", budget_tokens: budget };
  return extras.body ? Object.assign(body, withoutThinkingConflicts(extras.body)) : body;
}

/** The budget for an effort, below max_tokens as the API asks; null: no thinking (off, a model without it, or no room). */
function thinkingBudget(effort: Effort, maxTokens: number, thinks: boolean): number | null {
  if (effort === "off" || !thinks) return null;
  const budget = Math.min(THINKING_BUDGET[effort], Math.floor(maxTokens / 2));
  return budget >= MIN_BUDGET ? budget : null;
}

/**
 * Whether thinking may be on for this request. With thinking on, the final assistant message, when
 * it holds tool_use, must start with its thinking (docs.anthropic.com/en/docs/build-with-claude/extended-thinking,
 * "Preserving thinking blocks"). lembas keeps that thinking and sends it back (engine/history.ts);
 * a call made without it (effort off then, or on another API) cannot get it, and the API's own
 * answer to such a request says the way out: "To avoid this requirement, disable `thinking`". So
 * that request goes without thinking; the next one after a text reply thinks again.
 */
function thinksNow(messages: readonly Message[]): boolean {
  const last = messages.findLast((m) => m.role === "assistant");
  if (!last?.content.some((b) => b.type === "tool_use")) return true;
  const first = last.content[0]?.type;
  return first === "thinking" || first === "redacted_thinking";
}

function toTool(tool: ToolSpec): Block {
  return { name: tool.function.name, description: tool.function.description, input_schema: tool.function.parameters };
}

/** The chat messages as Messages' alternating turns: consecutive ones of a role are one message (tool results first in theirs). */
function toMessages(messages: readonly ChatMessage[]): Message[] {
  const out: Message[] = [];
  const add = (role: Message["role"], content: Block[]) => {
    if (content.length === 0) return;
    const last = out.at(-1);
    // Merged, a message's thinking still comes first: the API refuses an assistant message with tool_use whose thinking follows text.
    if (last && last.role === role) last.content = [...content.filter(isThinking), ...last.content, ...content.filter((b) => !isThinking(b))];
    else out.push({ role, content });
  };
  for (const message of messages) {
    if (message.role === "system") continue;
    // A failed call says so (docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use, "Handling tool use and tool result content blocks").
    if (message.role === "tool") add("user", [{ type: "tool_result", tool_use_id: message.tool_call_id, content: message.content, ...(message.failed ? { is_error: true } : {}) }]);
    else if (message.role === "user") add("user", userBlocks(message.content));
    else add("assistant", assistantBlocks(message));
  }
  return out;
}

function assistantBlocks(message: Extract<ChatMessage, { role: "assistant" }>): Block[] {
  const blocks: Block[] = (message.carry ?? []).flatMap((c) => (c.api === "messages" ? [c.item] : []));
  if (message.content) blocks.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: callInput(call.function.arguments) });
  return blocks;
}

/** A call's arguments as the object Messages takes; text that is not an object (a cut call) is sent as none. */
function callInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args || "{}");
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function userBlocks(content: string | ContentPart[]): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.flatMap((part): Block[] => (part.type === "text" ? (part.text ? [{ type: "text", text: part.text }] : []) : [imageBlock(part.image_url.url)]));
}

/** An image as Messages takes it (docs.anthropic.com/en/docs/build-with-claude/vision): base64 from a data: URL, else by URL. */
function imageBlock(url: string): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } };
  return { type: "image", source: { type: "url", url } };
}

function isThinking(block: Block): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

/** The conversation's last block that takes a breakpoint (thinking blocks take none) gets one. */
function markTail(messages: Message[]): void {
  const last = messages.at(-1);
  if (!last) return;
  for (let i = last.content.length - 1; i >= 0; i--) {
    const block = last.content[i];
    if (!block || isThinking(block)) continue;
    last.content[i] = { ...block, cache_control: CACHE };
    return;
  }
}
