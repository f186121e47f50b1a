import { z } from "zod";
import { fail, ok } from "./result.ts";
import { capOutput, defineTool, type Tool } from "./tool.ts";
import description from "./task.txt" with { type: "text" };

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    description: z.string().min(1).describe("3 to 6 words, for the person"),
    prompt: z.string().min(1),
  });

/** The input schema when there are custom agents: the agent to hand the task to. */
const agentSchema = () =>
  schema().extend({
    agent: z.string().min(1).optional().describe("One of the agents listed; none: the read-only helper"),
  });

/** The most of a helper's answer the model is sent. */
export const MAX_ANSWER_CHARS = 16_000;

/** The most helpers of one step that run at once; the others wait for one to end. */
export const HELPERS_AT_ONCE = 4;

/** A custom agent as the task tool lists it: what it is for, and whether it may change files (then it runs alone). */
export type AgentListing = { name: string; description: string; writes: boolean };

type TaskInput = { description: string; prompt: string; agent?: string | undefined };

const definition = {
  name: "task",
  description,
  permission: "read",
  needs: ["helpers"],
  kind: "think",
  atOnce: HELPERS_AT_ONCE,
  title: (input: TaskInput) => (input.agent ? `Task (${input.agent}): ${input.description}` : `Task: ${input.description}`),
  paths: () => [],
} as const;

/**
 * task: a helper session answers a narrower question in its own context: the read-only explorer,
 * or a custom agent the person wrote (project/agent-files.ts). The engine runs the helper
 * (ctx.helpers.subAgent); one that only reads runs in plan mode too, beside others of its step.
 */
export const taskTool = defineTool({
  ...definition,
  schema,
  async execute(input, ctx) {
    return answerOf(await ctx.helpers.subAgent(input.prompt, ctx.signal));
  },
});

/**
 * The task tool of a session that has custom agents: its description lists them, its input takes
 * one's name, and a call to an agent that may change files runs alone. A session without any is
 * offered taskTool, the same bytes as before agents were there. The same agents give the same tool,
 * so that its zod schema and JSON schema are made once, not at every step that offers it.
 */
export function taskToolWith(agents: readonly AgentListing[]): Tool {
  const key = JSON.stringify(agents.map((a) => [a.name, a.description, a.writes]));
  const known = withAgents.get(key);
  if (known) return known;
  const tool = makeTaskTool(agents);
  // A few sets of agents (a service's sessions in several projects); an old one is made again if it comes back.
  if (withAgents.size >= KEPT_AGENT_SETS) withAgents.delete(withAgents.keys().next().value ?? "");
  withAgents.set(key, tool);
  return tool;
}

const KEPT_AGENT_SETS = 16;
const withAgents = new Map<string, Tool>();

function makeTaskTool(agents: readonly AgentListing[]): Tool {
  const writers = new Set(agents.filter((a) => a.writes).map((a) => a.name));
  const listed = agents.map((a) => `- ${a.name}: ${a.description}${a.writes ? " (may change files)" : ""}`).join("\n");
  return defineTool({
    ...definition,
    description: `${description.trimEnd()}\n\nAgents the person wrote, with their own instructions and tools, to name as \`agent\` (one that may change files works alone):\n${listed}\n`,
    schema: agentSchema,
    runsAlone: (input) => input.agent !== undefined && writers.has(input.agent),
    async execute(input, ctx) {
      return answerOf(await ctx.helpers.subAgent(input.prompt, ctx.signal, input.agent));
    },
  });
}

function answerOf(answer: { text: string; isError: boolean; steps: number; toolCalls: number }) {
  const meta = { steps: answer.steps, toolCalls: answer.toolCalls };
  if (answer.isError) return fail(answer.text, meta);
  if (answer.text.trim() === "") return fail("The helper gave no answer. Ask it again, more narrowly, or look yourself.", meta);
  return ok(capOutput(answer.text, MAX_ANSWER_CHARS, "ask the helper a narrower question"), { meta });
}
