import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../build.ts";
import { ALL_TOOLS, toolByName } from "../../src/tools/index.ts";
import { inputSchema } from "../../src/tools/tool.ts";
import { initializeParams, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";

// The compiled binary is what people run: its tools' JSON schemas are stamped in by build.ts.
let dir = "";
let bin = "";
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-binary-"));
  bin = await build(join(dir, "lembas"));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the compiled binary runs a turn over ACP, offering the tools with the schemas zod makes", async () => {
  const a = await startStdioAgent({ cmd: [bin, "serve", "--stdio"] });
  try {
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [], _meta: { mode: "plan" } });
    a.model.push(step({ text: "hello from the binary" }));
    const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(result.stopReason).toBe("end_turn");
    const chunks = a.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk");
    expect(chunks.map((u) => (u.update as { content: { text: string } }).content.text).join("")).toBe("hello from the binary");

    const requests = await a.model.waitForRequests(1);
    const turn = requests.find((r) => isStep(r.body));
    const offered = (turn?.body.tools ?? []) as { function: { name: string; parameters: unknown } }[];
    // Plan mode offers every tool but none that writes outside the plan: at least read, grep, plan_submit.
    expect(offered.map((t) => t.function.name)).toEqual(expect.arrayContaining(["read", "grep", "plan_submit"]));
    for (const { function: f } of offered) {
      const tool = toolByName(f.name);
      expect(tool).toBeDefined();
      if (tool) expect(f.parameters).toEqual(inputSchema(tool));
    }
    expect(ALL_TOOLS.length).toBeGreaterThanOrEqual(offered.length);
  } finally {
    await a.close();
  }
}, 60_000);
