import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { SessionBus } from "../../src/bus/index.ts";
import { nobody } from "../../src/engine/interaction.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { runToolCall } from "../../src/engine/tool-runner.ts";
import { defineTool, MAX_RESULT_CHARS } from "../../src/tools/tool.ts";
import { makeContext } from "../tools/context.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const toolMessages = () => (h.model.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));

test("one read of 2,000 lines of 2,000 characters sends the model at most about 30,000 characters, and says how to read on", async () => {
  const line = "x".repeat(1999);
  writeFileSync(join(h.project, "wide.txt"), `${Array.from({ length: 2000 }, () => line).join("\n")}\n`);
  h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "wide.txt" } }] }), step({ text: "read" }));
  const session = await h.session({ mode: "edit" });
  await session.prompt({ text: "read wide.txt" });
  const [result] = toolMessages();
  expect(result?.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
  expect(result).toMatch(/\(lines 1-\d+ of 2000 shown; the file continues: read on with offset \d+\)$/);
});

test("every tool's result is capped in one place, with what was left out and how to see it", async () => {
  const flood = defineTool({
    name: "flood",
    description: "says a lot",
    schema: () => z.object({}),
    permission: "none",
    kind: "other",
    needs: [],
    title: () => "flood",
    more: "ask for a page of it",
    execute: async () => ({ output: `${"a".repeat(100_000)}END` }),
  });
  const { ctx } = makeContext();
  const record = await runToolCall(
    { id: "c1", name: "flood", arguments: "{}" },
    {
      sessionId: "s1",
      bus: new SessionBus("s1"),
      tools: new Map([["flood", flood]]),
      mode: "auto",
      root: ctx.root,
      protectedPaths: protectedPaths([], []),
      allowed: new Set(),
      interaction: nobody(""),
      signal: new AbortController().signal,
      context: () => ctx,
    },
  );
  expect(record.output.length).toBeLessThanOrEqual(MAX_RESULT_CHARS + 200);
  expect(record.output).toContain("characters left out: ask for a page of it");
  expect(record.output.endsWith("END")).toBe(true);
});
