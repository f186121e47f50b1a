import type { EngineEvent } from "../bus/index.ts";
import type { Update } from "./tool-calls.ts";

/** The most notices one session's editor is shown (the rest would be a flood of the same trouble). */
const MAX_NOTICES = 50;
/** A card's title: the notice's head, at most this long. */
const TITLE_CHARS = 80;

/**
 * The session's notices as an editor on stdio shows them (an MCP server that did not start, a
 * command file that could not be read): ACP has no session/update for them, so each is a tool call
 * card of its own, as codex-acp shows an MCP server's failed start: kind "other", failed for a
 * warning (completed for an information), its sentence as the card's text. Each notice once; a
 * model request sent again (a notice with `retry`) is the turn's business and shows nothing. Card
 * ids are unique in the session, across attaches. The cards are updates only: nothing of them reaches the model's history, nor a session/load.
 */
export function editorNotices(): (event: EngineEvent) => Update[] {
  const said = new Set<string>();
  // The cards of an earlier attach of the session (before a session/close and session/resume) are
  // still in the client's thread: this attach's ids carry a mark of their own, so none is reused.
  const attach = crypto.randomUUID().slice(0, 8);
  return (event) => {
    if (event.type !== "notice" || event.retry || said.has(event.message) || said.size >= MAX_NOTICES) return [];
    said.add(event.message);
    return [
      {
        sessionUpdate: "tool_call",
        toolCallId: `lembas_notice_${attach}_${said.size}`,
        title: titleOf(event.message),
        kind: "other",
        status: event.level === "warn" ? "failed" : "completed",
        content: [{ type: "content", content: { type: "text", text: event.message } }],
        _meta: { lembas: { notice: event.level } },
      },
    ];
  };
}

/**
 * A notice's head ('MCP server "notes" did not start'), its first clause, within TITLE_CHARS: one
 * that starts with a path keeps its end (the file's name and what befell it).
 */
function titleOf(message: string): string {
  const head = message.split(/: |\n/)[0] ?? message;
  if (head.length <= TITLE_CHARS) return head.charAt(0).toUpperCase() + head.slice(1);
  if (head.startsWith("/")) return `…${head.slice(head.length - TITLE_CHARS + 1)}`;
  return `${head.charAt(0).toUpperCase()}${head.slice(1, TITLE_CHARS - 1)}…`;
}
