import { afterAll, describe, expect, test } from "bun:test";
import { MAX_ANSWER_CHARS, taskTool } from "../../src/tools/task.ts";
import { cleanupTempDirs, makeContext, run } from "./context.ts";

afterAll(cleanupTempDirs);

const input = { description: "find the loader", prompt: "Where is the config loaded? Give path:line." };

describe("task", () => {
  test("hands the prompt to a helper and gives its answer back", async () => {
    const { ctx, rec } = makeContext({ subAgent: () => ({ text: "src/config/load.ts:12", isError: false, steps: 3, toolCalls: 2 }) });
    const result = await run(taskTool, input, ctx);
    expect(rec.helped).toEqual([input.prompt]);
    expect(result).toMatchObject({ output: "src/config/load.ts:12", meta: { steps: 3, toolCalls: 2 } });
    expect(result.isError).toBeFalsy();
    expect(taskTool.title(input, ctx)).toBe("Task: find the loader");
  });

  test("a helper's failure, or no answer, is a failed result the model can act on", async () => {
    const failed = makeContext({ subAgent: () => ({ text: "The helper's model call failed: 500", isError: true, steps: 1, toolCalls: 0 }) });
    expect(await run(taskTool, input, failed.ctx)).toMatchObject({ isError: true, output: "The helper's model call failed: 500" });
    const empty = makeContext({ subAgent: () => ({ text: "  ", isError: false, steps: 2, toolCalls: 1 }) });
    expect(await run(taskTool, input, empty.ctx)).toMatchObject({ isError: true, output: expect.stringContaining("gave no answer") });
  });

  test("a long answer is capped, saying how to get the rest", async () => {
    const { ctx } = makeContext({ subAgent: () => ({ text: "x".repeat(MAX_ANSWER_CHARS * 2), isError: false, steps: 1, toolCalls: 0 }) });
    const result = await run(taskTool, input, ctx);
    expect(result.output.length).toBeLessThan(MAX_ANSWER_CHARS + 200);
    expect(result.output).toContain("ask the helper a narrower question");
  });
});
