import type { ToolCallDelta } from "./events.ts";

/**
 * A tool call as the model made it; `arguments` is the JSON text, not yet parsed. `extraContent`
 * is a provider's own object on the call (Gemini's thought_signature), to be sent back with it.
 */
export type ToolCall = { id: string; name: string; arguments: string; extraContent?: Record<string, unknown> };

/** Assembles complete tool calls from a reply's `tool_call_delta` events. */
export class ToolCallAccumulator {
  private calls = new Map<number, { id: string | undefined; name: string | undefined; args: string[]; extra: Record<string, unknown> | undefined }>();

  /** @param newId an id for a call the server sent without one */
  constructor(private readonly newId: () => string = () => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`) {}

  add(delta: ToolCallDelta): void {
    let call = this.calls.get(delta.index);
    if (!call) {
      call = { id: undefined, name: undefined, args: [], extra: undefined };
      this.calls.set(delta.index, call);
    }
    call.id ??= delta.id;
    call.name ??= delta.name;
    if (delta.extra) call.extra = { ...call.extra, ...delta.extra };
    if (delta.argumentsDelta) call.args.push(delta.argumentsDelta);
  }

  /** How many calls the deltas so far started. */
  get size(): number {
    return this.calls.size;
  }

  /**
   * The calls in index order. A call the server named no tool for keeps name "", so the engine
   * can tell the model rather than drop the call; a call without arguments gets "{}".
   */
  result(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => {
        call.id ??= this.newId();
        const made: ToolCall = { id: call.id, name: call.name ?? "", arguments: call.args.join("") || "{}" };
        if (call.extra) made.extraContent = call.extra;
        return made;
      });
  }
}
