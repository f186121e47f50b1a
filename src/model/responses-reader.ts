import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { ModelEvent } from "./events.ts";

/**
 * Reads the events of a Responses API stream (platform.openai.com/docs/api-reference/responses-streaming)
 * into lembas's ModelEvents. Every event is a JSON object with a `type`; the stream ends with
 * `response.completed`, `response.incomplete` or `response.failed` (no `[DONE]`), or an `error` event.
 *
 * - `response.output_text.delta` and `response.refusal.delta` are the answer's text;
 *   `response.reasoning_summary_text.delta` (and `response.reasoning_text.delta`, which servers of
 *   open-weight models send) its reasoning.
 * - A `function_call` item (`response.output_item.added`) opens a call, `response.function_call_arguments.delta`
 *   adds to it; `…arguments.done` and `response.output_item.done` fill in what no delta gave.
 * - A `reasoning` item, once done, is carried: sent back as it came within the turn (its
 *   encrypted_content is what lets the model go on from its reasoning with `store: false`).
 * - A `web_search_call` item and the text's `url_citation` annotations are the sources of a search.
 */
export class ResponsesReader {
  /** The stream said it ended (completed, incomplete or failed). */
  finished = false;
  /** Why it failed, when `response.failed` or `error` said so. */
  failure: ResponsesFailure | null = null;
  /** Sources cited in the text (url_citation annotations), in order, each URL once. */
  readonly sources: { url: string; title: string }[] = [];
  /** What the web_search_call items searched for. */
  readonly searches: string[] = [];
  /** Call index (lembas's, one per call) by the item's output_index. */
  private readonly calls = new Map<number, { index: number; sent: number }>();
  /** Output indexes of items whose text or reasoning came in deltas: their `done` adds nothing. */
  private readonly streamed = new Set<number>();
  private refused = false;

  /** Reads one event's data (its JSON text); appends what it means to `out`. False: not a Responses event. */
  read(data: string, out: ModelEvent[]): boolean {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return false;
    }
    if (typeof json !== "object" || json === null || !("type" in json) || typeof json.type !== "string") return false;
    const event = json as { type: string } & Record<string, unknown>;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (typeof event.delta !== "string") return false;
        if (event.type === "response.refusal.delta") this.refused = true;
        this.noteStreamed(event.output_index);
        if (event.delta !== "") out.push({ type: "text", delta: event.delta });
        return true;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (typeof event.delta !== "string") return false;
        this.noteStreamed(event.output_index);
        if (event.delta !== "") out.push({ type: "reasoning", delta: event.delta });
        return true;
      case "response.reasoning_summary_part.added":
        // Each part of a summary is a paragraph of its own.
        if (typeof event.summary_index === "number" && event.summary_index > 0) out.push({ type: "reasoning", delta: "\n\n" });
        return true;
      case "response.function_call_arguments.delta":
        return this.arguments(event.output_index, event.delta, false, out);
      case "response.function_call_arguments.done":
        return this.arguments(event.output_index, event.arguments, true, out);
      case "response.output_item.added":
      case "response.output_item.done":
        return this.item(event, out);
      case "response.output_text.annotation.added":
        this.annotation(event.annotation);
        return true;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        return this.end(event, out);
      case "error":
        this.finished = true;
        // The documented shape has code and message on the event; some servers nest them in `error`.
        this.failure = failureOf(typeof event.error === "object" && event.error !== null ? event.error : event);
        return true;
      default:
        // created, in_progress, content_part.*, *.done of text, web_search_call.*: nothing to show.
        return true;
    }
  }

  private noteStreamed(outputIndex: unknown): void {
    if (typeof outputIndex === "number") this.streamed.add(outputIndex);
  }

  /** Argument text of a call: a delta, or the whole (`done`) of which only what was not sent yet is new. */
  private arguments(outputIndex: unknown, text: unknown, whole: boolean, out: ModelEvent[]): boolean {
    if (typeof outputIndex !== "number" || typeof text !== "string") return false;
    const call = this.calls.get(outputIndex);
    if (!call) return true; // arguments of a call never opened: a server's stray event, not worth a reply
    const delta = whole ? (text.length > call.sent ? text.slice(call.sent) : "") : text;
    if (delta === "") return true;
    call.sent += delta.length;
    out.push({ type: "tool_call_delta", index: call.index, argumentsDelta: delta });
    return true;
  }

  private item(event: Record<string, unknown>, out: ModelEvent[]): boolean {
    const parsed = outputItem().safeParse(event.item);
    if (!parsed.success || typeof event.output_index !== "number") return false;
    const item = parsed.data;
    const done = event.type === "response.output_item.done";
    const at = event.output_index;
    switch (item.type) {
      case "function_call": {
        if (!this.calls.has(at)) {
          const index = this.calls.size;
          this.calls.set(at, { index, sent: 0 });
          out.push({ type: "tool_call_delta", index, id: item.call_id ?? item.id ?? `call_${at}`, name: item.name ?? "", argumentsDelta: "" });
        }
        if (item.arguments) this.arguments(at, item.arguments, true, out);
        return true;
      }
      case "reasoning": {
        if (!done) return true;
        if (!this.streamed.has(at)) {
          const summary = (item.summary ?? []).map((part) => part.text).filter((text) => text !== "").join("\n\n");
          if (summary !== "") out.push({ type: "reasoning", delta: summary });
        }
        out.push({ type: "carry", item: { api: "responses", item: withoutStatus(event.item) } });
        return true;
      }
      case "message": {
        if (!done) return true;
        for (const part of item.content ?? []) {
          for (const annotation of part.annotations ?? []) this.annotation(annotation);
          if (this.streamed.has(at)) continue;
          if (part.type === "refusal" && part.refusal) {
            this.refused = true;
            out.push({ type: "text", delta: part.refusal });
          } else if (part.text) out.push({ type: "text", delta: part.text });
        }
        return true;
      }
      case "web_search_call": {
        if (!done) return true;
        const query = item.action?.query;
        if (query && !this.searches.includes(query)) this.searches.push(query);
        for (const source of item.action?.sources ?? []) if (source.url) this.addSource(source.url, source.title ?? "");
        return true;
      }
      default:
        return true;
    }
  }

  private annotation(value: unknown): void {
    const parsed = citation().safeParse(value);
    if (parsed.success) this.addSource(parsed.data.url, parsed.data.title ?? "");
  }

  private addSource(url: string, title: string): void {
    const known = this.sources.find((s) => s.url === url);
    if (known) {
      if (!known.title && title) known.title = title;
      return;
    }
    this.sources.push({ url, title });
  }

  private end(event: Record<string, unknown>, out: ModelEvent[]): boolean {
    this.finished = true;
    const parsed = endOfResponse().safeParse(event.response);
    const response = parsed.success ? parsed.data : {};
    const usage = response.usage;
    if (event.type === "response.failed") {
      // What a failed response cost is no part of a reply: said alone, it would count as one begun, and a retry lost.
      this.failure = failureOf(response.error ?? {});
      return true;
    }
    if (usage) {
      out.push({
        type: "usage",
        promptTokens: usage.input_tokens,
        completionTokens: usage.output_tokens,
        ...(usage.input_tokens_details?.cached_tokens ? { cacheReadTokens: usage.input_tokens_details.cached_tokens } : {}),
        ...(usage.output_tokens_details?.reasoning_tokens ? { reasoningTokens: usage.output_tokens_details.reasoning_tokens } : {}),
      });
    }
    if (event.type === "response.incomplete") {
      const reason = response.incomplete_details?.reason;
      out.push({ type: "finish", reason: reason === "content_filter" ? "refusal" : "max_tokens" });
      return true;
    }
    out.push({ type: "finish", reason: this.refused ? "refusal" : this.calls.size > 0 ? "tool_calls" : "end_turn" });
    return true;
  }
}

/** A failure the stream reported: the provider's code (context_length_exceeded, rate_limit_exceeded…) and words. */
export type ResponsesFailure = { code: string | null; message: string };

function failureOf(value: unknown): ResponsesFailure {
  const parsed = failureSchema().safeParse(value);
  if (!parsed.success) return { code: null, message: "no reason given" };
  const code = parsed.data.code === null || parsed.data.code === undefined ? null : String(parsed.data.code);
  return { code, message: parsed.data.message ?? code ?? "no reason given" };
}

/** An item as it is sent back: its status is of the reply that made it, not part of what it says. */
function withoutStatus(item: unknown): Record<string, unknown> {
  const { status: _status, ...rest } = item as Record<string, unknown>;
  return rest;
}

const failureSchema = lazily(() => z.looseObject({ code: z.union([z.string(), z.number()]).nullish(), message: z.string().nullish() }));

const citation = lazily(() => z.looseObject({ type: z.literal("url_citation"), url: z.string(), title: z.string().nullish() }));

/** The output items lembas reads (platform.openai.com/docs/api-reference/responses/object#output). */
const outputItem = lazily(() =>
  z.looseObject({
    type: z.string(),
    id: z.string().nullish(),
    call_id: z.string().nullish(),
    name: z.string().nullish(),
    arguments: z.string().nullish(),
    summary: z.array(z.looseObject({ text: z.string() })).nullish(),
    content: z
      .array(z.looseObject({ type: z.string(), text: z.string().nullish(), refusal: z.string().nullish(), annotations: z.array(z.unknown()).nullish() }))
      .nullish(),
    action: z
      .looseObject({ query: z.string().nullish(), sources: z.array(z.looseObject({ url: z.string().nullish(), title: z.string().nullish() })).nullish() })
      .nullish(),
  }),
);

/** The response object of the last event: its usage, why it is incomplete, why it failed. */
const endOfResponse = lazily(() =>
  z.looseObject({
    usage: z
      .looseObject({
        input_tokens: z.number(),
        output_tokens: z.number(),
        input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
        output_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
      })
      .nullish(),
    incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
    error: z.unknown().optional(),
  }),
);
