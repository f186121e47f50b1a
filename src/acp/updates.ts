import type { EngineEvent } from "../bus/index.ts";
import type { Session } from "../engine/session.ts";
import { editorNotices } from "./editor-notices.ts";
import { editorShow } from "./editor-show.ts";
import { isToolEvent, ToolCallFeed, type Update } from "./tool-calls.ts";

export type { Update };

/**
 * Maps one engine event to the ACP session/update notifications a plain client gets. Events
 * that ACP has no place for map to nothing (a LLeMbas client also gets them as _lembas/event).
 * Tool calls are the feed's (src/acp/tool-calls.ts): they have a state.
 */
export function toUpdates(event: EngineEvent, session: Session): Update[] {
  switch (event.type) {
    case "text":
      return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta } }];
    case "reasoning":
      return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.delta } }];
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

/**
 * One attached session's updates: each event mapped and sent, tool calls through their feed; to
 * an editor (`editor`: on stdio) also the title and the usage (src/acp/editor-show.ts), and the
 * session's notices as cards (src/acp/editor-notices.ts).
 */
export function sessionUpdates(session: Session, send: (update: Update) => void, options: { editor?: boolean } = {}) {
  const tools = new ToolCallFeed(send);
  const shown = options.editor ? editorShow() : null;
  const notices = options.editor ? editorNotices() : null;
  return {
    tools,
    event(event: EngineEvent): void {
      if (isToolEvent(event)) tools.event(event);
      for (const update of toUpdates(event, session)) send(update);
      for (const update of shown?.(event) ?? []) send(update);
      for (const update of notices?.(event) ?? []) send(update);
    },
  };
}
