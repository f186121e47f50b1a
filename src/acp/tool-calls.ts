import type { EngineEvent } from "../bus/index.ts";
import type { PermissionRequest } from "../engine/interaction.ts";
import { denialText } from "../transcript/denials.ts";
import { toolByName } from "../tools/index.ts";

/** A session/update's `update`, as the SDK types it. */
export type Update = Record<string, unknown> & { sessionUpdate: string };

type ToolEvent = Extract<EngineEvent, { type: "tool_call_delta" | "tool_start" | "tool_end" | "tool_denied" | "progress" | "sub_tool" | "step" | "task" }>;

/** The most of a running command's output a progress update carries: its tail, the rest said as cut. */
const MAX_LIVE_OUTPUT = 32 * 1024;

type Diff = { path: string; oldText: string | null; newText: string };

/** A helper's call (the task tool's), as its parent's content lists it, with the diffs of what it changed. */
type HelperCall = { title: string; status: string; diffs?: Diff[] };

type Call = { started: boolean; output: string; cut: number; timer: ReturnType<typeof setTimeout> | null; helpers?: Map<string, HelperCall> };

const HELPER_MARK: Record<string, string> = { in_progress: "○", completed: "●", failed: "✗" };

/**
 * One session's tool calls as a client sees them: each is announced (`tool_call`) once, as soon as
 * the model starts it (its first streamed piece) or, failing that, when its approval is asked or it
 * starts; what follows is `tool_call_update`. A running command's output goes out as the call's
 * content at most once every `intervalMs` (ACP content replaces what was shown, so each carries the
 * output so far, up to its last MAX_LIVE_OUTPUT characters). A call that ends without having run
 * (its arguments were bad, its approval cancelled) ends with what the model was told; one announced
 * that the engine never ended (its model call cut short) is failed when its step is over.
 */
export class ToolCallFeed {
  private readonly calls = new Map<string, Call>();

  constructor(
    private readonly send: (update: Update) => void,
    private readonly intervalMs = 200,
  ) {}

  /** The updates for one tool event, sent at once (progress later, coalesced). */
  event(event: ToolEvent): void {
    switch (event.type) {
      case "tool_call_delta":
        if (!this.calls.has(event.callId) && event.name) this.announce(event.callId, { title: streamingTitle(event.name), kind: kindOf(event.name) });
        return;
      case "tool_start":
        return this.start(event);
      case "progress":
        return this.progress(event.callId, event.output);
      case "tool_end":
        return this.end(event);
      case "sub_tool":
        return this.helper(event);
      case "tool_denied":
        return this.denied(event);
      case "step":
      case "task":
        return this.failUnstarted();
    }
  }

  /** Before an approval is asked: the client knows of the call it is asked about, with what it would do. */
  asked(request: PermissionRequest): void {
    const fields = { title: request.title, kind: request.kind, rawInput: request.rawInput };
    if (this.calls.has(request.callId)) this.send({ sessionUpdate: "tool_call_update", toolCallId: request.callId, ...fields });
    else this.announce(request.callId, fields);
  }

  private announce(callId: string, fields: Record<string, unknown>): void {
    this.calls.set(callId, { started: false, output: "", cut: 0, timer: null });
    this.send({ sessionUpdate: "tool_call", toolCallId: callId, status: "pending", ...fields });
  }

  private start(event: Extract<EngineEvent, { type: "tool_start" }>): void {
    const fields = { title: event.title, kind: event.kind, rawInput: event.args, locations: event.locations };
    const known = this.calls.has(event.callId);
    if (!known) this.announce(event.callId, fields);
    const call = this.calls.get(event.callId);
    if (call) call.started = true;
    this.send({ sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress", ...(known ? fields : {}) });
  }

  private progress(callId: string, output: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    call.output += output;
    if (call.output.length > MAX_LIVE_OUTPUT) {
      call.cut += call.output.length - MAX_LIVE_OUTPUT;
      call.output = call.output.slice(-MAX_LIVE_OUTPUT);
    }
    call.timer ??= setTimeout(() => {
      call.timer = null;
      const text = call.cut > 0 ? `[… ${call.cut} characters before …]\n${call.output}` : call.output;
      this.send({ sessionUpdate: "tool_call_update", toolCallId: callId, content: [{ type: "content", content: { type: "text", text } }] });
    }, this.intervalMs);
  }

  /**
   * A helper's call started or ended: the task call's content lists its helper's calls so far, one a
   * line, then a diff content for each change they made, as an edit call of the session carries its own.
   */
  private helper(event: Extract<EngineEvent, { type: "sub_tool" }>): void {
    const call = this.calls.get(event.parentCallId);
    if (!call) return;
    call.helpers ??= new Map();
    call.helpers.set(event.callId, { title: event.title, status: event.status, ...(event.diffs ? { diffs: event.diffs } : {}) });
    const text = [...call.helpers.values()].map((h) => `${HELPER_MARK[h.status] ?? "○"} ${h.title}`).join("\n");
    const content = [{ type: "content", content: { type: "text", text } }, ...helperDiffs(call)];
    this.send({ sessionUpdate: "tool_call_update", toolCallId: event.parentCallId, content });
  }

  /** A replayed task call's helpers, as its result keeps them: its end shows their diffs after its answer, as it did live. */
  helpersOf(callId: string, helpers: readonly HelperCall[]): void {
    const call = this.calls.get(callId);
    if (call) call.helpers = new Map(helpers.map((h, i) => [String(i), h]));
  }

  private end(event: Extract<EngineEvent, { type: "tool_end" }>): void {
    // A task's helper changed files: their diffs stay in its content, after its answer (content replaces what was shown).
    const fromHelpers = helperDiffs(this.calls.get(event.callId));
    // A call that ends unrun (no tool of its name) may never have been announced: its card says it all at once.
    const known = this.forget(event.callId);
    this.send({
      sessionUpdate: known ? "tool_call_update" : "tool_call",
      ...(known ? {} : { title: streamingTitle(event.name) || "tool call", kind: kindOf(event.name) }),
      toolCallId: event.callId,
      status: event.isError ? "failed" : "completed",
      content: event.diffs?.length
        ? event.diffs.map(diffContent)
        : [{ type: "content", content: { type: "text", text: event.output } }, ...fromHelpers],
      rawOutput: { output: event.output, ...(event.meta ?? {}) },
    });
  }

  private denied(event: Extract<EngineEvent, { type: "tool_denied" }>): void {
    const known = this.forget(event.callId);
    const text = denialText(event);
    this.send({
      sessionUpdate: known ? "tool_call_update" : "tool_call",
      toolCallId: event.callId,
      title: event.title,
      kind: event.kind,
      status: "failed",
      content: [{ type: "content", content: { type: "text", text } }],
    });
  }

  /** The calls announced that never started, failed: their step is over (or was taken back). */
  private failUnstarted(): void {
    for (const [callId, call] of [...this.calls]) {
      if (call.started) continue;
      this.forget(callId);
      this.send({ sessionUpdate: "tool_call_update", toolCallId: callId, status: "failed" });
    }
  }

  /** Stops following a call; whether it was known. */
  private forget(callId: string): boolean {
    const call = this.calls.get(callId);
    if (call?.timer) clearTimeout(call.timer);
    return this.calls.delete(callId);
  }

  /** Stops every pending progress update (the session is let go of). */
  close(): void {
    for (const call of this.calls.values()) if (call.timer) clearTimeout(call.timer);
    this.calls.clear();
  }
}

/** The diffs of what a task call's helper changed so far, as ACP diff contents, in the order made. */
function helperDiffs(call: Call | undefined): Record<string, unknown>[] {
  return [...(call?.helpers?.values() ?? [])].flatMap((h) => (h.diffs ?? []).map(diffContent));
}

function diffContent(d: Diff): Record<string, unknown> {
  return { type: "diff", path: d.path, oldText: d.oldText, newText: d.newText };
}

/** A call's title while its arguments stream: its name, an MCP tool's as `<server>: <tool>`, as its title will be. */
function streamingTitle(name: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? `${mcp[1]}: ${mcp[2]}` : name;
}

function kindOf(name: string): string {
  return toolByName(name)?.kind ?? "other";
}

/** Whether an event is one the feed maps. */
export function isToolEvent(event: EngineEvent): event is ToolEvent {
  return ["tool_call_delta", "tool_start", "tool_end", "tool_denied", "progress", "sub_tool", "step", "task"].includes(event.type);
}
