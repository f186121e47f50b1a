import { agentPlan, leftOutSentence } from "../engine/agent-roster.ts";
import { projectRoot } from "../engine/engine.ts";
import { errorMessage } from "../errors.ts";
import { CLAUDE_MODEL_NAMES, findAgentFiles } from "../project/agent-files.ts";
import { ALL_TOOLS } from "../tools/index.ts";
import type { Finding } from "./doctor-finding.ts";

/** How doctor finds the model an agent names: as a session resolves its own (the model registry), failing with a sentence. */
export type ResolveModel = (ref: string) => Promise<unknown>;

/**
 * The custom agents a session started in `cwd` would offer (project/agent-files.ts): one line
 * for those that can run, one for each that is given less than its file names, and one naming each
 * file that cannot run, with what is wrong. Its model is resolved as a session resolves it (a ref,
 * an alias, a served id, listed by the servers). An MCP tool an agent names is not checked (its
 * server is not started here).
 */
export async function checkAgents(input: { configDir: string; cwd: string; resolve: ResolveModel }): Promise<Finding[]> {
  const agents = findAgentFiles({ root: projectRoot(input.cwd), configDir: input.configDir });
  if (agents.length === 0) return [];
  const findings: Finding[] = [];
  const fine: string[] = [];
  for (const agent of agents) {
    const problems = [...agent.problems];
    const named = agent.tools?.filter((t) => !t.startsWith("mcp__")) ?? null;
    const plan = agentPlan({ ...agent, problems: [], tools: named }, ALL_TOOLS, "auto");
    if ("problems" in plan) problems.push(...plan.problems);
    const model = await modelProblem(agent.model, input.resolve);
    if (model !== null) problems.push(model);
    if (problems.length > 0) {
      findings.push({ ok: false, text: `agent ${agent.name}: ${agent.path} cannot run: ${problems.join("; ")}`, todo: "fix the file's frontmatter (name, description, tools, disallowedTools, model, effort)" });
      continue;
    }
    fine.push(agent.name);
    if ("leftOut" in plan && plan.leftOut.length > 0) findings.push({ ok: true, text: `agent ${agent.name}: ${agent.path} runs without ${leftOutSentence(plan.leftOut)}` });
  }
  return [...(fine.length > 0 ? [{ ok: true as const, text: `agents: ${fine.join(", ")}` }] : []), ...findings];
}

/** Why the model an agent names cannot be had; null when it can (or it names none, or one of Claude Code's, which the session's stands for). */
async function modelProblem(named: string | null, resolve: ResolveModel): Promise<string | null> {
  if (named === null) return null;
  try {
    await resolve(named);
    return null;
  } catch (error) {
    if (CLAUDE_MODEL_NAMES.has(named)) return null;
    return `its model "${named}" cannot be reached (${errorMessage(error)})`;
  }
}
