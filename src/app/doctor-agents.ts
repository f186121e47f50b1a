import type { Config } from "../config/schema.ts";
import { agentPlan } from "../engine/agent-roster.ts";
import { projectRoot } from "../engine/engine.ts";
import { CLAUDE_MODEL_NAMES, findAgentFiles } from "../project/agent-files.ts";
import { ALL_TOOLS } from "../tools/index.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * The custom agents a session started in `cwd` would offer (project/agent-files.ts): one line
 * for those that can run, and one naming each file that cannot, with what is wrong. An MCP tool an
 * agent names is not checked (its server is not started here), nor is a model asked.
 */
export function checkAgents(input: { config: Config; configDir: string; cwd: string; logins: readonly { name: string }[] }): Finding[] {
  const agents = findAgentFiles({ root: projectRoot(input.cwd), configDir: input.configDir });
  if (agents.length === 0) return [];
  const places = new Set([...Object.keys(input.config.connections ?? {}), ...input.logins.map((l) => l.name)]);
  const findings: Finding[] = [];
  const fine: string[] = [];
  for (const agent of agents) {
    const problems = [...agent.problems];
    const named = agent.tools?.filter((t) => !t.startsWith("mcp__")) ?? null;
    const plan = agentPlan({ ...agent, problems: [], tools: named }, ALL_TOOLS, "auto");
    if ("problems" in plan) problems.push(...plan.problems);
    const place = agent.model?.includes("/") ? agent.model.split("/")[0] : null;
    if (place && !places.has(place)) problems.push(`its model "${agent.model}" names "${place}", which is no connection in config.yaml nor a login`);
    if (agent.model && !agent.model.includes("/") && !CLAUDE_MODEL_NAMES.has(agent.model)) problems.push(`its model "${agent.model}" is not a model ref (connection/model)`);
    if (problems.length === 0) fine.push(agent.name);
    else findings.push({ ok: false, text: `agent ${agent.name}: ${agent.path} cannot run: ${problems.join("; ")}`, todo: "fix the file's frontmatter (name, description, tools, model, effort)" });
  }
  return [...(fine.length > 0 ? [{ ok: true as const, text: `agents: ${fine.join(", ")}` }] : []), ...findings];
}
