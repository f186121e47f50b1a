import type { SessionBus } from "../bus/index.ts";
import type { Effort } from "../config/schema.ts";
import { streamModelBatches } from "../model/reply-stream.ts";
import { modelApi } from "../model/apis.ts";
import { ModelError } from "../model/errors.ts";
import type { CarryItem, FinishReason, Usage } from "../model/events.ts";
import type { ChatMessage, ToolSpec } from "../model/request.ts";
import { type RetryPolicy, describeWait } from "../model/retry.ts";
import { type NativeCalls, textToolCallsFor } from "../model/text-toolcalls.ts";
export type { NativeCalls };
import { ToolCallAccumulator } from "../model/toolcalls.ts";
import { promptWithoutTools } from "./instructions.ts";
import { offersTools, type ResolvedModel } from "../model/resolved.ts";
import type { AssistantRecord, ToolCallRecord, ToolResultRecord } from "./records.ts";
import { KeptText } from "./step-text.ts";
import { CallIds } from "./call-ids.ts";

export type StopReason = "end_turn" | "max_turn_requests" | "max_tokens" | "cancelled" | "refusal";

/** What one model call produced. */
export type StepOutcome =
  | { kind: "reply"; record: AssistantRecord; finish: FinishReason }
  | { kind: "cancelled"; record: AssistantRecord }
  | { kind: "failed"; record: AssistantRecord; error: ModelError };

/**
 * One model call: streams the reply to the bus as it comes and assembles it. A failure after the
 * first token keeps what was said (partial) so the session stays consistent. Its answer and its
 * reasoning are kept up to a bound each (step-text.ts), with a note of what was left out.
 */
export async function callModel(input: {
  bus: SessionBus;
  turnId: string;
  step: number;
  model: ResolvedModel;
  effort: Effort;
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Whether the server sent calls of its own earlier in the turn; set here when it does. */
  native: NativeCalls;
  /** The call ids the session has used already (call-ids.ts): a call the server gives one of them gets its own. */
  usedCallIds?: ReadonlySet<string>;
  onUsage(usage: Usage): void;
}): Promise<StepOutcome> {
  const { bus } = input;
  const text = new KeptText("answer");
  const reasoning = new KeptText("reasoning");
  const callIds = new CallIds(input.usedCallIds);
  const idOf = (index: number, given?: string): string => callIds.of(index, given);
  const calls = new ToolCallAccumulator();
  const carry: CarryItem[] = [];
  const record = (partial: boolean): AssistantRecord => {
    const answerNote = text.close();
    if (answerNote) bus.emit({ type: "text", delta: answerNote });
    const reasoningNote = reasoning.close();
    if (reasoningNote) bus.emit({ type: "reasoning", delta: reasoningNote });
    return { text: text.text, reasoning: reasoning.text, toolCalls: calls.result(), ...(partial ? { partial: true } : {}), ...(carry.length > 0 ? { carry } : {}) };
  };
  // A model that takes no tools is sent none, and a system prompt that promises none.
  const withTools = offersTools(input.model);
  const tools = withTools ? input.tools : [];
  const messages = withTools ? input.messages : input.messages.map((m) => (m.role === "system" ? { ...m, content: promptWithoutTools(m.content) } : m));
  const stream = streamModelBatches(
    input.model.endpoint,
    { model: input.model.servedId, messages, tools, effort: input.effort },
    { signal: input.signal, rejectedFields: input.model.rejectedFields, ...(input.retry ? { retry: input.retry } : {}) },
  );
  // Tool calls the model wrote as text, because its server did not parse them, become calls (Messages and Responses servers always parse them).
  const chat = modelApi(input.model.endpoint, input.model.servedId) === "chat";
  const textCalls = chat ? textToolCallsFor(tools, input.model.endpoint, input.native) : null;
  for await (const read of stream) {
    const batch = textCalls ? textCalls.push(read) : read;
    for (const event of batch) {
    switch (event.type) {
      // The model's event is the bus's as it is (the same two fields), unless the bound cut it.
      case "text": {
        const kept = text.add(event.delta);
        if (kept) bus.emit(kept === event.delta ? event : { type: "text", delta: kept });
        break;
      }
      case "reasoning": {
        const kept = reasoning.add(event.delta);
        if (kept) bus.emit(kept === event.delta ? event : { type: "reasoning", delta: kept });
        break;
      }
      case "tool_call_delta":
        if (!withTools) break;
        calls.add({ ...event, id: idOf(event.index, event.id) });
        bus.emit({
          type: "tool_call_delta",
          callId: idOf(event.index),
          index: event.index,
          ...(event.name ? { name: event.name } : {}),
          argumentsDelta: event.argumentsDelta,
        });
        break;
      case "usage": {
        const { type: _type, ...usage } = event;
        input.onUsage(usage);
        break;
      }
      case "carry":
        carry.push(event.item);
        break;
      case "retry":
        bus.emit({
          type: "notice",
          level: "warn",
          message: retryNotice(event.error, event.delayMs, event.attempt, event.retries),
          retry: { attempt: event.attempt, retries: event.retries, reason: event.error.message },
        });
        break;
      case "finish":
        // A refusal is the answer: calls that came with it are not made; nor are those of a reply cut at its token limit (the last is cut short).
        if (event.reason === "refusal" || event.reason === "max_tokens") return { kind: "reply", record: { ...record(false), toolCalls: [] }, finish: event.reason };
        return { kind: "reply", record: record(false), finish: event.reason };
      case "error":
        if (event.error.kind === "aborted" || input.signal.aborted) return { kind: "cancelled", record: record(true) };
        return { kind: "failed", record: record(true), error: cutShort(event.error, text.text !== "" || reasoning.text !== "" || callIds.size > 0) };
    }
    }
  }
  if (input.signal.aborted) return { kind: "cancelled", record: record(true) };
  return { kind: "reply", record: record(false), finish: "end_turn" };
}

/** What a retry's wait is said as: why, how long, and which retry of how many. */
function retryNotice(error: ModelError, delayMs: number, attempt: number, retries: number): string {
  return `${error.message}; trying again in ${describeWait(delayMs)} (retry ${attempt} of ${retries})`;
}

/** A failure after part of the reply was shown says that that part is what the turn has. */
function cutShort(error: ModelError, shown: boolean): ModelError {
  if (!shown) return error;
  return new ModelError(error.kind, `${error.message}; the reply ends where it was cut off (what arrived is kept)`, error.status);
}

/** Results for tool calls that will not run (the turn was cancelled first), so the history stays whole. */
export function skippedResults(calls: readonly ToolCallRecord[], why: string): ToolResultRecord[] {
  return calls.map((c) => ({ callId: c.id, name: c.name, output: why, isError: true }));
}
