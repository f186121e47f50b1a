import type { SessionBus } from "../bus/index.ts";
import type { Effort, Mode } from "../config/schema.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import type { SubAgentAnswer } from "../tools/tool.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { turnMode } from "./mode-cap.ts";
import type { SessionMcp } from "./session-mcp.ts";
import type { SessionHooks } from "./hook-set.ts";
import { runSubAgent, type SubAgentDeps } from "./sub-agent.ts";

/** The session a helper starts from: its place and bus, its tools and MCP servers, and the running turn's mode. */
export type HelperHost = {
  readonly id: string;
  readonly root: string;
  readonly cwd: string;
  readonly bus: SessionBus;
  readonly interaction: Interaction | null;
  readonly mcp: SessionMcp | null;
  readonly hooks: SessionHooks | null;
  readonly mode: Mode;
  readonly turnCap: Mode | null;
  readonly deps: SubAgentDeps["shared"];
};

/**
 * The task tool's helper (sub-agent.ts), started from a session's turn: with the turn's model and
 * effort, the session's tools, and its MCP servers' tools as the turn's mode offers them.
 */
export async function runHelper(session: HelperHost, turn: { model: ResolvedModel; effort: Effort }, callId: string, prompt: string, signal: AbortSignal): Promise<SubAgentAnswer> {
  // Fixed at the session's first step, before any task call: the list the model was offered.
  const mcpTools = (await session.mcp?.tools(session.interaction ?? nobody(""), signal, turnMode(session.mode, session.turnCap))) ?? [];
  const { bus, id: sessionId, root, cwd, deps: shared } = session;
  return runSubAgent({ bus, sessionId, root, cwd, model: turn.model, effort: turn.effort, shared, mcpTools, hooks: session.hooks }, callId, prompt, signal);
}
