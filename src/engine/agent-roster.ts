import type { Mode } from "../config/schema.ts";
import type { AgentFile } from "../project/agent-files.ts";
import { isClaudeOnlyTool } from "../project/claude-tool-names.ts";
import { meetsNeeds, type Need } from "../tools/capabilities.ts";
import type { AgentListing } from "../tools/task.ts";
import type { Tool } from "../tools/tool.ts";

/**
 * What a custom agent's tools may be given: the project's files (a ledger of its own), its model,
 * changes the turn's undo covers, commands, the session's background jobs, the web, and the
 * skills. Not the person's questions, the session's todos, settings or library, nor helpers of its
 * own: a tool that needs those is left out of its set though it names it (said in its prompt).
 */
export const AGENT_GIVES = ["files", "model", "fileAccess", "changes", "commands", "jobs", "web", "skills", "lsp"] as const satisfies readonly Need[];

/**
 * A custom agent ready to run: its tools (within the turn's mode), whether it may change anything
 * (then it runs alone), and the names its file gives that it does not get (told to it and by doctor).
 */
export type AgentPlan = { agent: AgentFile; tools: Tool[]; writes: boolean; leftOut: string[] };

/**
 * Whether a helper's tool only reads: of the read class, and not one that reaches the session's
 * background jobs (`job` stops them, and its reads move the session's place in their output).
 */
export function onlyReads(tool: Tool): boolean {
  return tool.permission === "read" && !tool.needs.includes("jobs");
}

/** Whether a name in an agent file means the tool NAME: the same, or a `*` pattern (`mcp__github__*`) it starts with. */
function means(written: string, name: string): boolean {
  return written.endsWith("*") ? name.startsWith(written.slice(0, -1)) : written === name;
}

/**
 * The tools an agent gets of the session's (`tools`: its built-ins and MCP tools), as Claude Code
 * gives them: those it names (no `tools` line: every one), less its `disallowedTools`, of those a
 * helper can be given, never task; in plan mode only those that read. A Claude Code tool lembas
 * lacks is left out (`leftOut`); a name no tool has is a problem, as the file's are, each a sentence.
 */
export function agentPlan(agent: AgentFile, tools: readonly Tool[], mode: Mode): AgentPlan | { problems: string[] } {
  const usable = tools.filter((t) => t.name !== "task" && meetsNeeds(t.needs, AGENT_GIVES));
  const missing = (names: readonly string[]) => names.filter((n) => !isClaudeOnlyTool(n) && !n.endsWith("*") && !tools.some((t) => t.name === n));
  const what = (names: readonly string[]) => `${names.length === 1 ? "a tool that does not exist" : "tools that do not exist"}: ${names.join(", ")}`;
  const problems = [...agent.problems];
  const unknown = missing(agent.tools ?? []);
  if (unknown.length > 0) problems.push(`it names ${what(unknown)} (an agent's tools are: ${usable.map((t) => t.name).join(", ")})`);
  // An MCP tool not there to take away (its server not started) leaves nothing to take away.
  const unknownDenied = missing(agent.disallowed).filter((n) => !n.startsWith("mcp__"));
  if (unknownDenied.length > 0) problems.push(`its disallowedTools names ${what(unknownDenied)}`);
  if (problems.length > 0) return { problems };
  const denied = (name: string) => agent.disallowed.some((d) => means(d, name));
  const named = agent.tools;
  let chosen = named === null ? usable : usable.filter((t) => named.some((n) => means(n, t.name)));
  chosen = chosen.filter((t) => !denied(t.name));
  const leftOut = (named ?? []).filter((n) => !denied(n) && !usable.some((t) => means(n, t.name)));
  if (mode === "plan") chosen = chosen.filter(onlyReads);
  return { agent, tools: chosen, writes: chosen.some((t) => !onlyReads(t)), leftOut };
}

/** What an agent is told (and doctor says) of the tools its file names that it does not get, each with why. */
export function leftOutSentence(names: readonly string[]): string {
  const why = (name: string) => {
    if (isClaudeOnlyTool(name)) return "Claude Code's; lembas has no such tool";
    if (name.endsWith("*")) return "matches no tool of the session";
    return "a helper is not given it";
  };
  return names.map((name) => `${name} (${why(name)})`).join(", ");
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
