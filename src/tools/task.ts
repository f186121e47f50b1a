import { z } from "zod";
import { fail, ok } from "./result.ts";
import { capOutput, defineTool } from "./tool.ts";
import description from "./task.txt" with { type: "text" };

/** The input schema, made on first use (see defineTool). */
const schema = () =>
  z.object({
    description: z.string().min(1).describe("What the helper looks into, in 3 to 6 words"),
    prompt: z.string().min(1).describe("The whole question for the helper, which sees nothing of this conversation"),
  });

/** The most of a helper's answer the model is sent. */
export const MAX_ANSWER_CHARS = 16_000;

/**
 * task: a read-only helper session answers a narrower question in its own context. It only reads,
 * so it runs in plan mode too; the engine runs the helper (ctx.helpers.subAgent).
 */
export const taskTool = defineTool({
  name: "task",
  description,
  schema,
  permission: "read",
  needs: ["helpers"],
  kind: "think",
  title: (input) => `Task: ${input.description}`,
  paths: () => [],
  async execute(input, ctx) {
    const answer = await ctx.helpers.subAgent(input.prompt, ctx.signal);
    const meta = { steps: answer.steps, toolCalls: answer.toolCalls };
    if (answer.isError) return fail(answer.text, meta);
    if (answer.text.trim() === "") return fail("The helper gave no answer. Ask it again, more narrowly, or look yourself.", meta);
    return ok(capOutput(answer.text, MAX_ANSWER_CHARS, "ask the helper a narrower question"), { meta });
  },
});
