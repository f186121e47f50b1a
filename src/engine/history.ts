import { readFileSync } from "node:fs";
import type { ChatMessage, ContentPart } from "../model/request.ts";
import type { AssistantRecord, StoredMessage } from "./records.ts";

/**
 * Turns stored messages into what the model is sent: the summary (when the history was compacted)
 * stands for everything up to the summary's seq; every assistant tool call gets a result, even one
 * a dead process never wrote; images a tool read go in a user message after the results.
 */
export function toChatMessages(
  system: string,
  messages: readonly StoredMessage[],
  opts: { summary: string | null; summarySeq: number | null; vision: boolean; afterSummary?: string | undefined; notes?: ReadonlyMap<number, string> },
): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: system }];
  if (opts.summary) {
    // What a running turn must not lose (its task, the todo list) follows the summary: compaction.ts.
    const after = opts.afterSummary ? `\n\n${opts.afterSummary}` : "";
    out.push({ role: "user", content: `A summary of our conversation so far (the full history was compacted):\n\n${opts.summary}${after}` });
  }
  const visible = messages.filter((m) => opts.summarySeq === null || m.seq > opts.summarySeq);
  // A made-up reply keeps the turns alternating, unless the running turn's own reply follows: merged
  // into it, it would stand before that reply's thinking, which Messages refuses.
  if (opts.summary && visible[0]?.role !== "assistant") out.push({ role: "assistant", content: "Understood. I will continue from this summary." });
  // What a provider needs back (thinking with signatures, reasoning items) goes back within the
  // running turn, and with a tool loop no text reply closed (a turn cut by cancel, an error or a
  // crash): Messages refuses a final assistant tool_use without its thinking while thinking is on
  // (docs.anthropic.com/en/docs/build-with-claude/extended-thinking, "Preserving thinking blocks").
  const turnNow = visible.at(-1)?.turnId ?? null;
  const loopFrom = visible.findLastIndex((m) => m.role === "assistant" && m.body.toolCalls.length === 0) + 1;
  let pendingCalls: string[] = [];
  let pendingImages: ContentPart[] = [];
  const closeCalls = () => {
    for (const id of pendingCalls) out.push({ role: "tool", tool_call_id: id, content: "(no result: the turn was interrupted)" });
    pendingCalls = [];
    if (pendingImages.length > 0) {
      out.push({ role: "user", content: [{ type: "text", text: "The images the tools read:" }, ...pendingImages] });
      pendingImages = [];
    }
  };
  for (const [index, message] of visible.entries()) {
    if (message.role === "tool") {
      if (!pendingCalls.includes(message.body.callId)) continue;
      pendingCalls = pendingCalls.filter((id) => id !== message.body.callId);
      out.push({ role: "tool", tool_call_id: message.body.callId, content: message.body.output, ...(message.body.isError ? { failed: true as const } : {}) });
      if (opts.vision) {
        for (const image of message.body.images ?? []) {
          pendingImages.push({ type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
        }
      }
      continue;
    }
    closeCalls();
    if (message.role === "user") {
      out.push({ role: "user", content: userContent(withNote(message.body.text, opts.notes?.get(message.seq)), message.body.attachments ?? [], opts.vision) });
      continue;
    }
    const calls = message.body.toolCalls;
    const inTurn = (turnNow !== null && message.turnId === turnNow) || (index >= loopFrom && calls.length > 0);
    if (!message.body.text && calls.length === 0 && !(inTurn && message.body.carry)) continue;
    out.push(assistantMessage(message.body, inTurn));
    pendingCalls = calls.map((c) => c.id);
  }
  closeCalls();
  return out;
}

/** A message's text with lembas's note after it (mode-notes.ts). */
function withNote(text: string, note: string | undefined): string {
  return note ? `${text}\n\n${note}` : text;
}

/**
 * An assistant message as sent back. One that made tool calls carries its reasoning as
 * `reasoning_content`: DeepSeek's thinking mode answers 400 without it on every later request
 * (api-docs.deepseek.com/guides/thinking_mode, "tool calls"), and Kimi's thinking models want it
 * kept through a tool loop (platform.moonshot.ai, kimi-k2-thinking); other servers ignore it, and
 * one that refuses the field gets the request again without it (model/request-fields.ts). A
 * reply without tool calls is sent without its reasoning, as those APIs ask. Its carried items
 * (model/events.ts CarryItem) go with it when it is of the running turn or of an open tool loop.
 */
function assistantMessage(body: AssistantRecord, inTurn: boolean): ChatMessage {
  const message = assistantWithCalls(body);
  if (inTurn && body.carry && body.carry.length > 0 && message.role === "assistant") message.carry = body.carry;
  return message;
}

function assistantWithCalls(body: AssistantRecord): ChatMessage {
  const calls = body.toolCalls;
  if (calls.length === 0) return { role: "assistant", content: body.text || null };
  const message: ChatMessage = {
    role: "assistant",
    content: body.text || null,
    tool_calls: calls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: c.arguments || "{}" },
      ...(c.extraContent ? { extra_content: c.extraContent } : {}),
    })),
  };
  if (body.reasoning) message.reasoning_content = body.reasoning;
  return message;
}

function userContent(
  text: string,
  attachments: readonly { name: string; mimeType: string; path: string }[],
  vision: boolean,
): string | ContentPart[] {
  const images = attachments.filter((a) => a.mimeType.startsWith("image/"));
  if (!vision || images.length === 0) return text;
  const parts: ContentPart[] = [{ type: "text", text }];
  for (const image of images) {
    try {
      const data = readFileSync(image.path).toString("base64");
      parts.push({ type: "image_url", image_url: { url: `data:${image.mimeType};base64,${data}` } });
    } catch {
      parts.push({ type: "text", text: `(the image ${image.name} is no longer on disk)` });
    }
  }
  return parts;
}
