import type { Mode } from "../config/schema.ts";
import { findAgentFiles } from "../project/agent-files.ts";
import type { Tool } from "../tools/tool.ts";
import { agentPlan, leftOutSentence } from "./agent-roster.ts";

/** A line of the agents' listing, and whether it says something is wrong. */
export type AgentLine = { text: string; warn: boolean };

/**
 * The custom agents a session at ROOT offers (what /agents shows): each with where it was found,
 * its description, the tools it gets in MODE of the session's TOOLS (an MCP tool as its file names
 * it, the server not being asked here), its model and effort; one that cannot run, with why.
 */
export function agentLines(root: string, configDir: string, tools: readonly Tool[], mode: Mode): AgentLine[] {
  const agents = findAgentFiles({ root, configDir });
  if (agents.length === 0) return [{ text: `no agents: none in ${root}'s .agent/agents/ or .claude/agents/, nor in ${configDir}/agents/`, warn: false }];
  return agents.flatMap((agent): AgentLine[] => {
    const head = { text: `${agent.name} — ${agent.description || "(no description)"} · ${agent.source}: ${agent.path}`, warn: false };
    const mcp = agent.tools?.filter((t) => t.startsWith("mcp__")) ?? [];
    const plan = agentPlan({ ...agent, tools: agent.tools?.filter((t) => !t.startsWith("mcp__")) ?? null }, tools, mode);
    if ("problems" in plan) return [head, { text: `  cannot run: ${plan.problems.join("; ")}`, warn: true }];
    const given = [...plan.tools.map((t) => t.name), ...mcp];
    const model = `model: ${agent.model ?? "the session's"}${agent.effort ? ` · effort: ${agent.effort}` : ""}`;
    const lines = [head, { text: `  tools (${mode} mode): ${given.join(", ") || "none"}${plan.writes ? " (may change files: runs alone)" : ""} · ${model}`, warn: false }];
    if (plan.leftOut.length > 0) lines.push({ text: `  left out: ${leftOutSentence(plan.leftOut)}`, warn: false });
    return lines;
  });
}
