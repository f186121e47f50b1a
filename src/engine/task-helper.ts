import type { SessionBus } from "../bus/index.ts";
import type { Effort, Mode } from "../config/schema.ts";
import type { ResolvedModel } from "../model/resolved.ts";
import { CLAUDE_MODEL_NAMES, findAgentFiles } from "../project/agent-files.ts";
import type { SubAgentAnswer } from "../tools/tool.ts";
import { agentPlan, agentRefusal } from "./agent-roster.ts";
import { type Interaction, nobody } from "./interaction.ts";
import { turnMode } from "./mode-cap.ts";
import { ruleKeeper } from "./session-rules.ts";
import { findSkills } from "../project/skills.ts";
import type { SessionMcp } from "./session-mcp.ts";
import type { SessionDeps } from "./session-types.ts";
import type { SessionHooks } from "./hook-set.ts";
import { type AgentRun, runSubAgent, type SubAgentDeps } from "./sub-agent.ts";
import type { TurnUndo } from "./undo.ts";
import type { Jobs } from "../tools/jobs.ts";
import type { FileAccess } from "../tools/file-access.ts";

/** The session a helper starts from: its place and bus, its tools and MCP servers, and the running turn's mode. */
export type HelperHost = {
  readonly id: string;
  readonly root: string;
  readonly cwd: string;
  readonly bus: SessionBus;
  readonly interaction: Interaction | null;
  readonly fileAccess: FileAccess | null;
  readonly mcp: SessionMcp | null;
  readonly hooks: SessionHooks | null;
  readonly mode: Mode;
  readonly turnCap: Mode | null;
  /** The session's background jobs: an agent's bash may start one, stopped with the session. */
  readonly jobs: Jobs;
  readonly deps: SubAgentDeps["shared"] & Pick<SessionDeps, "paths" | "models" | "web">;
};

/** The running turn a helper works in: its model and effort, its undo, and the approvals the person kept for the session. */
export type HelperTurn = { model: ResolvedModel; effort: Effort; undo: TurnUndo; allowed: Set<string> };

/**
 * The task tool's helper (sub-agent.ts), started from a session's turn: the explorer with the
 * turn's model and effort, the session's read tools, and its MCP servers' as the turn's mode offers
 * them; or the custom agent named, with its own prompt, tools (within the turn's mode), model and effort.
 */
export async function runHelper(session: HelperHost, turn: HelperTurn, callId: string, prompt: string, signal: AbortSignal, agentName?: string): Promise<SubAgentAnswer> {
  const mode = turnMode(session.mode, session.turnCap);
  // Fixed at the session's first step, before any task call: the list the model was offered.
  const mcpTools = (await session.mcp?.tools(session.interaction ?? nobody(""), signal, mode)) ?? [];
  const { bus, id: sessionId, root, cwd, deps: shared } = session;
  const base = { bus, sessionId, root, cwd, shared, mcpTools, hooks: session.hooks, fileAccess: session.fileAccess };
  if (agentName === undefined) return runSubAgent({ ...base, model: turn.model, effort: turn.effort }, callId, prompt, signal);
  const refused = (text: string): SubAgentAnswer => ({ text, isError: true, steps: 0, toolCalls: 0 });
  const agents = findAgentFiles({ root, configDir: shared.paths.configDir });
  const agent = agents.find((a) => a.name === agentName);
  if (!agent) return refused(`There is no agent named "${agentName}". ${agents.length > 0 ? `The agents are: ${agents.map((a) => a.name).join(", ")}.` : "There are none: leave out `agent`."}`);
  const plan = agentPlan(agent, [...shared.tools, ...mcpTools], mode);
  if ("problems" in plan) return refused(agentRefusal(agent, plan.problems));
  const model = await agentModel(session, agent.model, turn.model);
  if ("problem" in model) return refused(agentRefusal(agent, [model.problem]));
  const run: AgentRun = {
    ...plan,
    // The session's mode as it is at each call: one the person lowers while the agent works holds for its next call.
    mode: () => turnMode(session.mode, session.turnCap),
    interaction: session.interaction ?? nobody("nobody can approve it in this session"),
    allowed: turn.allowed,
    keep: ruleKeeper(shared.db, bus, session),
    undo: turn.undo,
    web: shared.web,
    jobs: session.jobs,
    skills: { all: () => findSkills({ root, configDir: shared.paths.configDir }).skills.filter((s) => s.forModel) },
  };
  return runSubAgent({ ...base, model: model.model, effort: agent.effort ?? turn.effort, agent: run }, callId, prompt, signal);
}

/** The model an agent names, resolved as the session resolves its own; none: the turn's. */
async function agentModel(session: HelperHost, named: string | null, turnModel: ResolvedModel): Promise<{ model: ResolvedModel } | { problem: string }> {
  if (named === null) return { model: turnModel };
  try {
    return { model: await session.deps.models.resolve(named) };
  } catch (error) {
    // Claude Code's names: where lembas knows no model by that name, the turn's runs the agent.
    if (CLAUDE_MODEL_NAMES.has(named)) return { model: turnModel };
    return { problem: `its model "${named}" cannot be reached (${error instanceof Error ? error.message : String(error)})` };
  }
}
