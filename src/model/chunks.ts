import { z } from "zod";
import { type ModelEvent, type ToolCallDelta, mapFinishReason } from "./events.ts";

const ToolCallChunk = z.object({
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const Delta = z.object({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(ToolCallChunk).nullish(),
});

/** One `data:` payload of a chat-completions stream, as far as lembas reads it. */
export const Chunk = z.object({
  choices: z
    .array(z.object({ index: z.number().optional(), delta: Delta.nullish(), finish_reason: z.string().nullish() }))
    .nullish(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
  /** Some servers (vLLM, OpenRouter, LLeMbas) report a failure inside a started stream. */
  error: z
    .union([z.object({ message: z.string().optional(), code: z.union([z.string(), z.number()]).nullish() }), z.string()])
    .nullish(),
});
export type Chunk = z.infer<typeof Chunk>;

const isNullish = (v: unknown) => v === undefined || v === null;
const isText = (v: unknown) => v === undefined || v === null || typeof v === "string";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isToolCallChunk(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { index, id, function: fn } = value;
  // zod's int() is a safe integer; its number() is finite.
  if (!(index === undefined || (Number.isSafeInteger(index) && (index as number) >= 0))) return false;
  if (!isText(id)) return false;
  return isNullish(fn) || (isRecord(fn) && isText(fn.name) && isText(fn.arguments));
}

function isDelta(value: unknown): boolean {
  if (isNullish(value)) return true;
  if (!isRecord(value)) return false;
  if (!isText(value.content) || !isText(value.reasoning_content) || !isText(value.reasoning)) return false;
  const calls = value.tool_calls;
  return isNullish(calls) || (Array.isArray(calls) && calls.every(isToolCallChunk));
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
  if (!isRecord(value) || !isNullish(value.error)) return false;
  const { choices, usage } = value;
  if (!(isNullish(choices) || (Array.isArray(choices) && choices.every(isChoice)))) return false;
  return isNullish(usage) || (isRecord(usage) && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens));
}

type ToolSlot = { id: string | undefined; index: number };

/**
 * Turns the chunks of one reply into events. Keeps what spans chunks: tool call slots, the
 * finish reason and the last usage, which {@link end} gives once the stream is over.
 */
export class ChunkReader {
  private slots = new Map<number, ToolSlot>();
  private nextIndex = 0;
  private finishReason: string | null = null;
  private sawFinish = false;
  private usage: { promptTokens: number; completionTokens: number } | null = null;

  /** Whether a choice said why it finished; a stream may then end without [DONE]. */
  get finished(): boolean {
    return this.sawFinish;
  }

  /** Appends the events of one chunk to `out`; only the first choice is read. */
  read(chunk: Chunk, out: ModelEvent[]): void {
    if (chunk.usage) this.usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta;
    if (delta) this.readDelta(delta, out);
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.sawFinish = true;
    }
  }

  /** The closing events: usage when the server sent it, then finish. */
  end(out: ModelEvent[]): void {
    if (this.usage) out.push({ type: "usage", ...this.usage });
    out.push({ type: "finish", reason: mapFinishReason(this.finishReason, this.nextIndex > 0) });
  }

  private readDelta(delta: z.infer<typeof Delta>, out: ModelEvent[]): void {
    const reasoning = delta.reasoning_content || delta.reasoning;
    if (reasoning) out.push({ type: "reasoning", delta: reasoning });
    if (delta.content) out.push({ type: "text", delta: delta.content });
    const calls = delta.tool_calls;
    if (!calls) return;
    for (let position = 0; position < calls.length; position++) {
      const call = calls[position];
      if (call) out.push(this.toolDelta(call, position));
    }
  }

  /**
   * A server's tool call index names a slot; a new id at a used index is a new call (some
   * servers send every call at index 0), so events get indices of their own.
   */
  private toolDelta(call: z.infer<typeof ToolCallChunk>, position: number): ToolCallDelta {
    const key = call.index ?? position;
    const id = call.id || undefined;
    let slot = this.slots.get(key);
    if (!slot || (id !== undefined && slot.id !== undefined && id !== slot.id)) {
      slot = { id, index: this.nextIndex++ };
      this.slots.set(key, slot);
    } else if (id !== undefined) {
      slot.id = id;
    }
    const event: ToolCallDelta = { type: "tool_call_delta", index: slot.index, argumentsDelta: call.function?.arguments ?? "" };
    if (id !== undefined) event.id = id;
    const name = call.function?.name;
    if (name) event.name = name;
    return event;
  }
}
