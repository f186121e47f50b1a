import type { EngineEvent } from "../bus/index.ts";
import type { Session } from "../engine/session.ts";

/** A session/update's `update`, as the SDK types it. */
export type Update = Record<string, unknown> & { sessionUpdate: string };

/**
 * Maps one engine event to the ACP session/update notifications a plain client gets. Events
 * that ACP has no place for map to nothing (a LLeMbas client also gets them as _lembas/event).
 */
export function toUpdates(event: EngineEvent, session: Session): Update[] {
  switch (event.type) {
    case "text":
      return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta } }];
    case "reasoning":
      return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.delta } }];
    case "tool_start":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: event.callId,
          title: event.title,
          kind: event.kind,
          status: "pending",
          rawInput: event.args,
          locations: event.locations,
        },
        { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" },
      ];
    case "tool_end":
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: event.callId,
          status: event.isError ? "failed" : "completed",
          content: event.diffs?.length
            ? event.diffs.map((d) => ({ type: "diff", path: d.path, oldText: d.oldText, newText: d.newText }))
            : [{ type: "content", content: { type: "text", text: event.output } }],
          rawOutput: { output: event.output, ...(event.meta ?? {}) },
        },
      ];
    case "tool_denied":
      return [
        {
          sessionUpdate: "tool_call",
          toolCallId: event.callId,
          title: event.title,
          kind: event.kind,
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: event.feedback ? `denied: ${event.feedback}` : `refused: ${event.reason}` } }],
        },
      ];
    case "todos":
      return [
        {
          sessionUpdate: "plan",
          entries: event.todos.map((t) => ({ content: t.content, status: t.status, priority: t.priority ?? "medium" })),
        },
      ];
    case "mode":
      return [{ sessionUpdate: "current_mode_update", currentModeId: session.mode }];
    default:
      return [];
  }
}
