import { z } from "zod";
import { type ModelEvent, type ToolCallDelta, mapFinishReason } from "./events.ts";
import { ThinkTagSplitter } from "./think-tags.ts";
import { lazily } from "../lazy.ts";

/**
 * One `data:` payload of a chat-completions stream, as far as lembas reads it. Made on first use:
 * chunks are checked by hand (isWellFormedChunk), and only one that fails that check reaches zod.
 */
export const chunkSchema = lazily(() => {
  const ToolCallChunk = z.object({
    index: z.number().int().nonnegative().optional(),
    id: z.string().nullish(),
    /** A string of JSON text; a few servers send the object itself. */
    function: z.object({ name: z.string().nullish(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() }).nullish(),
    /** Gemini's provider fields on a call (`{ google: { thought_signature } }`), sent back with it. */
    extra_content: z.record(z.string(), z.unknown()).nullish(),
  });

  const Delta = z.object({
    content: z.string().nullish(),
    /** DeepSeek, llama.cpp, vLLM before 0.10, LM Studio, Kimi. */
    reasoning_content: z.string().nullish(),
    /** Ollama, OpenRouter, Groq, vLLM 0.10 and later. */
    reasoning: z.string().nullish(),
    /** OpenRouter's structured reasoning, beside (or instead of) `reasoning`; read leniently. */
    reasoning_details: z.array(z.unknown()).nullish(),
    /** OpenAI's refusal, sent in place of content. */
    refusal: z.string().nullish(),
    tool_calls: z.array(ToolCallChunk).nullish(),
  });

  return z.object({
    choices: z
      .array(z.object({ index: z.number().optional(), delta: Delta.nullish(), finish_reason: z.string().nullish() }))
      .nullish(),
    /** Read leniently (see readUsage): a usage lembas cannot read is no reason to lose a reply. */
    usage: z.unknown().optional(),
    /** Groq's older place for the usage, in the last chunk (console.groq.com/docs/api-reference). */
    x_groq: z.unknown().optional(),
    /**
     * vLLM's own error shape, `{ object: "error", message, type, code }` in place of a chunk
     * (vllm/entrypoints/openai/protocol.py ErrorResponse), seen with {@link error} by the client.
     */
    object: z.unknown().optional(),
    message: z.unknown().optional(),
    code: z.unknown().optional(),
    /** Some servers (vLLM, OpenRouter, LLeMbas) report a failure inside a started stream. */
    error: z
      .union([z.object({ message: z.string().optional(), code: z.union([z.string(), z.number()]).nullish() }), z.string()])
      .nullish(),
  });
});
export type Chunk = z.infer<ReturnType<typeof chunkSchema>>;
type Delta = NonNullable<NonNullable<Chunk["choices"]>[number]["delta"]>;
type ToolCallChunk = NonNullable<Delta["tool_calls"]>[number];

const isNullish = (v: unknown) => v === undefined || v === null;
const isText = (v: unknown) => v === undefined || v === null || typeof v === "string";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `items.every(check)` as a plain loop: this runs for every token of every reply. */
function all(items: readonly unknown[], check: (value: unknown) => boolean): boolean {
  for (let i = 0; i < items.length; i++) if (!check(items[i])) return false;
  return true;
}

function isToolCallChunk(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { index, id, function: fn, extra_content } = value;
  // zod's int() is a safe integer; its number() is finite.
  if (!(index === undefined || (Number.isSafeInteger(index) && (index as number) >= 0))) return false;
  if (!isText(id) || !(isNullish(extra_content) || isRecord(extra_content))) return false;
  return isNullish(fn) || (isRecord(fn) && isText(fn.name) && (isText(fn.arguments) || isRecord(fn.arguments)));
}

function isDelta(value: unknown): boolean {
  if (isNullish(value)) return true;
  if (!isRecord(value)) return false;
  if (!isText(value.content) || !isText(value.reasoning_content) || !isText(value.reasoning) || !isText(value.refusal)) return false;
  if (!(isNullish(value.reasoning_details) || Array.isArray(value.reasoning_details))) return false;
  const calls = value.tool_calls;
  return isNullish(calls) || (Array.isArray(calls) && all(calls, isToolCallChunk));
}

function isChoice(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { index, finish_reason } = value;
  return (index === undefined || Number.isFinite(index)) && isText(finish_reason) && isDelta(value.delta);
}

/**
 * The hot path of a stream: a chunk without an error (text, reasoning, tool call pieces, the
 * finish, the usage) is checked here with a few comparisons, accepting exactly what {@link Chunk}
 * accepts, instead of a schema parse per token (and the schema's first-use cost in a fresh
 * process). A chunk carrying an error goes through the schema.
 */
export function isWellFormedChunk(value: unknown): value is Chunk {
  if (!isRecord(value) || !isNullish(value.error) || value.object === "error") return false;
  const { choices } = value;
  return isNullish(choices) || (Array.isArray(choices) && all(choices, isChoice));
}

/** The failure a chunk reports: its `error`, or vLLM's error object in its place; null for a chunk that is not one. */
export function chunkError(chunk: Chunk): NonNullable<Chunk["error"]> | null {
  if (chunk.error) return chunk.error;
  if (chunk.object !== "error") return null;
  const { message, code } = chunk;
  return { message: typeof message === "string" ? message : "no reason given", code: typeof code === "string" || typeof code === "number" ? code : null };
}

type Usage = { promptTokens: number; completionTokens: number };

/**
 * The usage of a chunk, where a server put it: `usage` (in the last chunk, often with empty
 * choices, when asked with stream_options.include_usage: OpenAI, vLLM, llama.cpp, Ollama,
 * DeepSeek, Mistral always) or Groq's `x_groq.usage`; null when there is none or it is unreadable.
 */
function readUsage(chunk: Chunk): Usage | null {
  let usage = chunk.usage;
  if (isNullish(usage) && isRecord(chunk.x_groq)) usage = chunk.x_groq.usage;
  if (!isRecord(usage)) return null;
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  if (typeof prompt !== "number" || !Number.isFinite(prompt)) return null;
  return { promptTokens: prompt, completionTokens: typeof completion === "number" && Number.isFinite(completion) ? completion : 0 };
}

type Choice = NonNullable<Chunk["choices"]>[number];

/** The choice of index 0 (a choice without an index is the first); a loop, not a closure per chunk. */
function firstChoice(choices: Chunk["choices"]): Choice | undefined {
  if (!choices) return undefined;
  for (let i = 0; i < choices.length; i++) {
    const c = choices[i] as Choice;
    if ((c.index ?? 0) === 0) return c;
  }
  return undefined;
}

/** OpenRouter's reasoning_details as text: its `reasoning.text` and `reasoning.summary` items (encrypted ones say nothing). */
function detailsText(details: readonly unknown[]): string {
  let text = "";
  for (const item of details) {
    if (!isRecord(item)) continue;
    if (typeof item.text === "string") text += item.text;
    else if (typeof item.summary === "string") text += item.summary;
  }
  return text;
}

/** Whether `text` is one whole JSON value (checked only on the rare tool-call pieces that need it). */
function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type ToolSlot = { id: string | undefined; index: number; named: boolean; args: string };

/**
 * Turns the chunks of one reply into events. Keeps what spans chunks: tool call slots, the
 * finish reason and the last usage, which {@link end} gives once the stream is over.
 */
export class ChunkReader {
  /** The calls by the server's index (or position, for calls sent without one). */
  private slots = new Map<number, ToolSlot>();
  private byId = new Map<string, ToolSlot>();
  private nextIndex = 0;
  private finishReason: string | null = null;
  private sawFinish = false;
  private refused = false;
  private usage: Usage | null = null;
  private readonly think = new ThinkTagSplitter();

  /** Whether a choice said why it finished; a stream may then end without [DONE]. */
  get finished(): boolean {
    return this.sawFinish;
  }

  /** The server ended the choice with finish_reason "error" (OpenRouter, with or without an error object). */
  get failed(): boolean {
    return this.finishReason === "error";
  }

  /** Appends the events of one chunk to `out`; only the first choice is read. */
  read(chunk: Chunk, out: ModelEvent[]): void {
    if (!isNullish(chunk.usage) || !isNullish(chunk.x_groq)) this.usage = readUsage(chunk) ?? this.usage;
    const choice = firstChoice(chunk.choices);
    if (!choice) return;
    const delta = choice.delta;
    if (delta) this.readDelta(delta, out);
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.sawFinish = true;
    }
  }

  /** The closing events: text held back, usage when the server sent it, then finish. */
  end(out: ModelEvent[]): void {
    this.think.end(out);
    if (this.usage) out.push({ type: "usage", ...this.usage });
    const reason = this.refused ? "refusal" : mapFinishReason(this.finishReason, this.nextIndex > 0);
    out.push({ type: "finish", reason });
  }

  private readDelta(delta: Delta, out: ModelEvent[]): void {
    const reasoning = delta.reasoning_content || delta.reasoning || (delta.reasoning_details ? detailsText(delta.reasoning_details) : "");
    if (reasoning) out.push({ type: "reasoning", delta: reasoning });
    if (delta.content) this.think.push(delta.content, out);
    if (delta.refusal) {
      // OpenAI sends a refusal in its own field, instead of content: it is the answer, and the
      // reply ends as refused (platform.openai.com/docs/guides/structured-outputs#refusals).
      this.refused = true;
      out.push({ type: "text", delta: delta.refusal });
    }
    const calls = delta.tool_calls;
    if (!calls) return;
    for (let position = 0; position < calls.length; position++) {
      const call = calls[position];
      if (call) out.push(this.toolDelta(call, position));
    }
  }

  /**
   * Which call a piece belongs to, whatever the server's ids and indexes say:
   * - an id seen before is that call, whatever its index (some servers repeat the id on every piece),
   *   unless it comes with a tool name at another index after that call was named: that is a call
   *   the server gave the same id (the engine gives it one of its own);
   * - a server's index names a slot; a new id with a tool name at a used index is a new call (some
   *   servers send every call at index 0), but a new id without a name is the same call, whose id
   *   changed mid-call (the first id is kept);
   * - a call without an index goes by its position in the chunk (Gemini sends whole calls so), and a
   *   named piece after a named call at that position is the next call.
   * Events get indices of their own, unique in the reply.
   */
  private toolDelta(call: ToolCallChunk, position: number): ToolCallDelta {
    const id = call.id || undefined;
    const name = call.function?.name || undefined;
    const key = call.index ?? position;
    const atKey = this.slots.get(key);
    let slot = id === undefined ? undefined : atKey?.id === id ? atKey : this.byId.get(id);
    if (slot && name !== undefined && slot.named && slot !== atKey) slot = undefined;
    if (slot) {
      this.slots.set(key, slot);
    } else {
      slot = atKey;
      const startsAnother =
        slot !== undefined &&
        name !== undefined &&
        slot.named &&
        ((id !== undefined && slot.id !== undefined && id !== slot.id) || (call.index === undefined && id === undefined));
      if (!slot || startsAnother) {
        slot = { id, index: this.nextIndex++, named: false, args: "" };
        this.slots.set(key, slot);
      }
      if (id !== undefined) {
        slot.id ??= id;
        this.byId.set(id, slot);
      }
    }
    const event: ToolCallDelta = { type: "tool_call_delta", index: slot.index, argumentsDelta: this.argumentsPiece(slot, call.function?.arguments) };
    if (slot.id !== undefined) event.id = slot.id;
    if (name) {
      slot.named = true;
      event.name = name;
    }
    if (call.extra_content) event.extra = call.extra_content;
    return event;
  }

  /**
   * The new part of a call's arguments. Some servers send, after the pieces, the whole arguments
   * once more (vLLM's end-of-stream flush: vllm-project/vllm#42167, #51697), which appended would
   * be broken JSON: a piece that starts with everything so far and is whole JSON on its own,
   * where the two together are not, gives only what it adds.
   */
  private argumentsPiece(slot: ToolSlot, args: string | Record<string, unknown> | null | undefined): string {
    if (isNullish(args)) return "";
    const piece = typeof args === "string" ? args : JSON.stringify(args);
    if (piece.length === 0) return "";
    const so = slot.args;
    let added = piece;
    if (so.length > 0 && piece.startsWith(so) && isWholeJson(piece) && !isWholeJson(so + piece)) added = piece.slice(so.length);
    slot.args = so + added;
    return added;
  }
}
