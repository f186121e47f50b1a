import type { Mode } from "../config/schema.ts";
import type { AgentFile } from "../project/agent-files.ts";
import { meetsNeeds, type Need } from "../tools/capabilities.ts";
import type { AgentListing } from "../tools/task.ts";
import type { Tool } from "../tools/tool.ts";

/**
 * What a custom agent's tools may be given: the project's files (a ledger of its own), its model,
 * changes the turn's undo covers, commands, the session's background jobs, and the web. Not the
 * person's questions, the session's todos, settings, skills or library, nor helpers of its own: a tool that needs those is left
 * out of its set though it names it.
 */
export const AGENT_GIVES = ["files", "model", "changes", "commands", "jobs", "web"] as const satisfies readonly Need[];

/** A custom agent ready to run: its tools (within the turn's mode), and whether it may change anything (then it runs alone). */
export type AgentPlan = { agent: AgentFile; tools: Tool[]; writes: boolean };

/**
 * The tools an agent gets of the session's (`tools`: its built-ins and MCP tools): those it names
 * that a helper can be given, never task; in plan mode only those that read. No `tools`: the read
 * class, as the explorer's. Its problems (the file's, a tool that does not exist) as sentences.
 */
export function agentPlan(agent: AgentFile, tools: readonly Tool[], mode: Mode): AgentPlan | { problems: string[] } {
  const usable = tools.filter((t) => t.name !== "task" && meetsNeeds(t.needs, AGENT_GIVES));
  const problems = [...agent.problems];
  let chosen: Tool[];
  if (agent.tools === null) chosen = usable.filter((t) => t.permission === "read");
  else {
    const known = new Set(tools.map((t) => t.name));
    const missing = agent.tools.filter((name) => !known.has(name));
    const what = missing.length === 1 ? "a tool that does not exist" : "tools that do not exist";
    if (missing.length > 0) problems.push(`it names ${what}: ${missing.join(", ")} (an agent's tools are: ${usable.map((t) => t.name).join(", ")})`);
    chosen = usable.filter((t) => agent.tools?.includes(t.name));
  }
  if (problems.length > 0) return { problems };
  if (mode === "plan") chosen = chosen.filter((t) => t.permission === "read");
  return { agent, tools: chosen, writes: chosen.some((t) => t.permission !== "read") };
}

/** What the task tool answers for an agent that cannot run, PROBLEMS saying why. */
export function agentRefusal(agent: AgentFile, problems: readonly string[]): string {
  return `The agent "${agent.name}" (${agent.path}) cannot run: ${problems.join("; ")}. Tell the person, or do the task another way.`;
}

/**
 * The agents as the task tool lists them: a broken one too, so that a call to it is told what is
 * wrong. Whether one may change files is said as its tools are, whatever the mode: the tools
 * offered stay the same all session (toolset.ts); in plan mode such an agent gets its reads only.
 */
export function agentListings(agents: readonly AgentFile[], tools: readonly Tool[]): AgentListing[] {
  return agents.map((agent) => {
    const plan = agentPlan(agent, tools, "auto");
    const writes = "writes" in plan && plan.writes;
    return { name: agent.name, description: agent.description || "(no description: it cannot run)", writes };
  });
}
