import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../build.ts";
import { ALL_TOOLS, toolByName } from "../../src/tools/index.ts";
import { toolSpecs } from "../../src/engine/toolset.ts";
import { initializeParams, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { TEST_BIN } from "../support/run.ts";
import { tool } from "../support/tools.ts";

const MCP_SERVER = join(import.meta.dir, "../support/mcp-server.ts");

// The compiled binary is what people run: its tools' JSON schemas are stamped in by build.ts.
let dir = "";
let bin = "";
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-binary-"));
  // The run's own when test/run.ts built one: the same build.
  bin = TEST_BIN ?? (await build(join(dir, "lembas")));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the compiled binary runs a turn over ACP, offering the tools with the schemas zod makes, as the engine sends them", async () => {
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
      // As the engine sends it: zod's schema without the bounds the call is checked against when it comes.
      if (tool) expect(f.parameters).toEqual(toolSpecs([tool], { contextLength: 128_000 })[0]?.function.parameters);
    }
    expect(ALL_TOOLS.length).toBeGreaterThanOrEqual(offered.length);
  } finally {
    await a.close();
  }
}, 60_000);

test("the compiled binary runs a command (in its sandbox, watched for undo) and /undo puts the file back", async () => {
  const a = await startStdioAgent({ cmd: [bin, "serve", "--stdio"] });
  try {
    writeFileSync(join(a.project, "notes.txt"), "the person's notes\n");
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [], _meta: { mode: "auto" } });
    a.model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo overwritten > notes.txt && ls \"$LEMBAS_STATE_DIR\" | wc -l" } }] }),
      step({ text: "done" }),
    );
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "change it" }] });
    expect(readFileSync(join(a.project, "notes.txt"), "utf8")).toBe("overwritten\n");
    const step2 = a.model.requests.filter((r) => isStep(r.body)).at(-1);
    const result = String(step2?.body.messages?.findLast((m) => m.role === "tool")?.content ?? "");
    // The state dir is empty inside the sandbox (bwrap is installed in CI).
    if (tool("bwrap", "bubblewrap", "the compiled binary's sandbox check")) expect(result.trim().split("\n").at(-1)?.trim()).toBe("0");
    const undo = (await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/undo" }] })) as unknown as {
      _meta: { lembas: { undone: { files: string[] } } };
    };
    expect(undo._meta.lembas.undone.files).toEqual(["notes.txt"]);
    expect(readFileSync(join(a.project, "notes.txt"), "utf8")).toBe("the person's notes\n");
  } finally {
    await a.close();
  }
}, 60_000);

test("the compiled binary starts an editor's MCP server and offers its tools (the SDK is in the binary)", async () => {
  const a = await startStdioAgent({ cmd: [bin, "serve", "--stdio"] });
  const tag = `binary-mcp-${process.pid}-${Date.now()}`;
  try {
    await a.agent.request("initialize", initializeParams);
    const server = { name: "notes", command: process.execPath, args: [MCP_SERVER, `--tag=${tag}`], env: [] };
    const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [server], _meta: { mode: "auto" } })) as { sessionId: string };
    a.model.push(step({ toolCalls: [{ name: "mcp__notes__echo", arguments: { text: "from the binary" } }] }), step({ text: "echoed" }));
    const result = (await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "echo it" }] })) as { stopReason: string };
    expect(result.stopReason).toBe("end_turn");
    const steps = a.model.requests.filter((r) => isStep(r.body));
    const offered = ((steps[0]?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toContain("mcp__notes__echo");
    const answer = String(steps.at(-1)?.body.messages?.findLast((m) => m.role === "tool")?.content ?? "");
    expect(answer).toContain("from the binary");
  } finally {
    await a.close();
  }
}, 60_000);
