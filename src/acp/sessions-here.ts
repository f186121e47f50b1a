import type { Session } from "../engine/session.ts";
import type { McpServerSpec } from "../mcp/spec.ts";
import type { acp } from "../rpc/agent.ts";
import { configOptions } from "./config-options.ts";
import type { AgentHost } from "./host.ts";
import { modeState } from "./modes.ts";

/** What session/load, session/close and session/fork need of the connection that serves them (server.ts). */
export type SessionsHere = {
  host: AgentHost;
  /** The session attached on this connection, if it is. */
  attached(sessionId: string): Session | null;
  /** Whether this connection has the session: attached, or loading by a session/load under way. */
  holds(sessionId: string): boolean;
  /**
   * Makes the session this connection's before anything is awaited (a load's replay), so that
   * every front end asking where it is hears so; the function given back ends this load's hold.
   */
  loading(sessionId: string): () => void;
  /** Sends the session's events to this connection and gives it its approvals. */
  attach(session: Session, cx: acp.AgentContext): void;
  detach(sessionId: string): void;
  /** The session opened from the store with the editor's MCP servers; one unknown or held by another process is refused (-32602). */
  open(sessionId: string, mcpServers: readonly McpServerSpec[]): Session;
};

/** What an answer that makes a session live says of it (session/new, session/resume, session/load, session/fork). */
export async function liveAnswer(session: Session, host: AgentHost) {
  return {
    modes: modeState(session.mode, host.maxMode),
    configOptions: await configOptions(session, host),
    _meta: { lembas: { model: session.model, mode: session.mode, effort: session.effort } },
  };
}
