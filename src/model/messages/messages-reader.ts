import { type FinishReason, type ModelEvent, mapFinishReason } from "../events.ts";

/**
 * Reads a Messages stream's events (docs.anthropic.com/en/docs/build-with-claude/streaming) into
 * the engine's: `text_delta` → text; `thinking_delta` → reasoning, and the whole thinking block
 * with its signature (`signature_delta`), or a `redacted_thinking` block as it came, → a carried
 * item to send back; `tool_use` and its `input_json_delta`s → a tool call, indexed by its block;
 * `message_start`'s and `message_delta`'s usage → usage at the end, the cache's read and write
 * tokens counted into the prompt's; `message_delta`'s stop_reason → the finish.
 */
export class MessagesReader {
  /** The thinking block being read, by its index. */
  private thinking = new Map<number, { thinking: string; signature: string }>();
  private sawToolUse = false;
  private stopReason: string | null = null;
  private usage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, said: false };
  /** message_stop came: the reply is whole. */
  finished = false;
  /** What a web search of the reply read and cited (web_search_tool_result blocks, citations), each URL once. */
  readonly sources: { url: string; title: string }[] = [];

  /**
   * Reads one event's data (already parsed), appending what it means to `out`. Returns the
   * error object of an `error` event, for the caller to say; null otherwise.
   */
  read(event: StreamEvent, out: ModelEvent[]): ErrorObject | null {
    switch (event.type) {
      case "message_start":
        this.count(event.message?.usage);
        return null;
      case "content_block_start":
        this.start(event.index ?? 0, event.content_block ?? {}, out);
        return null;
      case "content_block_delta":
        this.delta(event.index ?? 0, event.delta ?? {}, out);
        return null;
      case "content_block_stop": {
        const index = event.index ?? 0;
        const block = this.thinking.get(index);
        if (block) {
          this.thinking.delete(index);
          out.push({ type: "carry", item: { api: "messages", item: { type: "thinking", thinking: block.thinking, signature: block.signature } } });
        }
        return null;
      }
      case "message_delta":
        if (typeof event.delta?.stop_reason === "string") this.stopReason = event.delta.stop_reason;
        this.count(event.usage);
        return null;
      case "message_stop":
        this.finished = true;
        return null;
      case "error":
        return event.error ?? { message: "no reason given" };
      default:
        // ping, and events this lembas does not know yet: the API says to skip them.
        return null;
    }
  }

  /** The reply's end: its usage (when the server said any) and its finish. */
  end(out: ModelEvent[]): void {
    const u = this.usage;
    if (u.said) {
      out.push({
        type: "usage",
        promptTokens: u.input + u.cacheRead + u.cacheWrite,
        completionTokens: u.output,
        ...(u.cacheRead > 0 ? { cacheReadTokens: u.cacheRead } : {}),
        ...(u.cacheWrite > 0 ? { cacheWriteTokens: u.cacheWrite } : {}),
      });
    }
    out.push({ type: "finish", reason: this.finish() });
  }

  private finish(): FinishReason {
    // pause_turn: a server tool's long turn paused; the reply so far is the answer.
    return mapFinishReason(this.stopReason, this.sawToolUse);
  }

  private start(index: number, block: Block, out: ModelEvent[]): void {
    switch (block.type) {
      case "text":
        if (typeof block.text === "string" && block.text) out.push({ type: "text", delta: block.text });
        return;
      case "thinking":
        this.thinking.set(index, { thinking: typeof block.thinking === "string" ? block.thinking : "", signature: typeof block.signature === "string" ? block.signature : "" });
        if (typeof block.thinking === "string" && block.thinking) out.push({ type: "reasoning", delta: block.thinking });
        return;
      case "redacted_thinking":
        out.push({ type: "carry", item: { api: "messages", item: block } });
        return;
      case "tool_use": {
        this.sawToolUse = true;
        const input = block.input !== undefined && typeof block.input === "object" && block.input !== null && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
        out.push({ type: "tool_call_delta", index, ...(typeof block.id === "string" ? { id: block.id } : {}), ...(typeof block.name === "string" ? { name: block.name } : {}), argumentsDelta: input });
        return;
      }
      case "web_search_tool_result":
        // docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool: the results' titles and URLs.
        if (Array.isArray(block.content)) for (const result of block.content) this.source(result);
        return;
      default:
        // server_tool_use (the search's query) and blocks this lembas does not know: nothing to show.
        return;
    }
  }

  private delta(index: number, delta: Block, out: ModelEvent[]): void {
    switch (delta.type) {
      case "text_delta":
        if (typeof delta.text === "string" && delta.text) out.push({ type: "text", delta: delta.text });
        return;
      case "thinking_delta": {
        if (typeof delta.thinking !== "string" || !delta.thinking) return;
        const block = this.thinking.get(index);
        if (block) block.thinking += delta.thinking;
        out.push({ type: "reasoning", delta: delta.thinking });
        return;
      }
      case "signature_delta": {
        const block = this.thinking.get(index);
        if (block && typeof delta.signature === "string") block.signature += delta.signature;
        return;
      }
      case "citations_delta":
        this.source(delta.citation);
        return;
      case "input_json_delta":
        if (typeof delta.partial_json === "string" && delta.partial_json) out.push({ type: "tool_call_delta", index, argumentsDelta: delta.partial_json });
        return;
      default:
        return;
    }
  }

  /** A search result or a citation of one, kept by its URL. */
  private source(value: unknown): void {
    if (typeof value !== "object" || value === null) return;
    const { url, title } = value as { url?: unknown; title?: unknown };
    if (typeof url !== "string" || this.sources.some((s) => s.url === url)) return;
    this.sources.push({ url, title: typeof title === "string" ? title : "" });
  }

  /** message_start's usage, then message_delta's (cumulative: a later count replaces an earlier one). */
  private count(usage: Usage | undefined): void {
    if (!usage) return;
    const u = this.usage;
    u.said = true;
    if (typeof usage.input_tokens === "number") u.input = usage.input_tokens;
    if (typeof usage.cache_read_input_tokens === "number") u.cacheRead = usage.cache_read_input_tokens;
    if (typeof usage.cache_creation_input_tokens === "number") u.cacheWrite = usage.cache_creation_input_tokens;
    if (typeof usage.output_tokens === "number") u.output = usage.output_tokens;
  }
}

type Block = Record<string, unknown> & { type?: unknown };
type Usage = { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown };
export type ErrorObject = { type?: string; message?: string };

/** A stream event's data as read: only the fields lembas reads, each checked where it is used. */
export type StreamEvent = {
  type?: string;
  index?: number;
  message?: { usage?: Usage };
  content_block?: Block;
  delta?: Block & { stop_reason?: unknown };
  usage?: Usage;
  error?: ErrorObject;
};
