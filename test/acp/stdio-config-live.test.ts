/**
 * config.yaml edited while `lembas serve --stdio` runs its own engine takes effect without a
 * restart: a deny rule holds from the open session's next turn and a new session starts in the
 * file's mode; a file that no longer validates keeps the last good one in force and the editor is
 * told once (a notice card) with the validator's sentence; fixed, what it says applies.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { startModel } from "../support/model.ts";

let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
});

type Made = { sessionId: string; modes?: { currentModeId?: string } };

async function writes(agent: StdioAgent, sessionId: string, file: string): Promise<boolean> {
  rmSync(join(agent.project, file), { force: true });
  agent.model.push(step({ toolCalls: [{ name: "write", arguments: { path: file, content: "x\n" } }] }), step({ text: "ok" }));
  await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `write ${file}` }] });
  return existsSync(join(agent.project, file));
}

const noticeCards = (agent: StdioAgent, sessionId: string) =>
  agent.updates
    .filter((u) => u.sessionId === sessionId)
    .map((u) => u.update as Record<string, unknown>)
    .filter((u) => u.sessionUpdate === "tool_call" && String(u.toolCallId).startsWith("lembas_notice_"))
    .map((u) => JSON.stringify(u));

test("a deny rule written under serve --stdio holds from the next turn; broken, the last good rules hold and the editor is told once; fixed, the new ones apply", async () => {
  a = await startStdioAgent();
  await a.agent.request("initialize", initializeParams);
  const cfgFile = join(a.box.configDir, "config.yaml");
  const first = readFileSync(cfgFile, "utf8");
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as Made;
  expect(await writes(a, sessionId, "one.txt")).toBe(true);

  const denied = `${first}mode: plan\npermissions:\n  deny: [Write(two.txt), Edit(two.txt)]\n`;
  writeFileSync(cfgFile, denied);
  expect(await writes(a, sessionId, "two.txt")).toBe(false);
  expect(await writes(a, sessionId, "one.txt")).toBe(true);
  const fresh = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as Made;
  expect(fresh.modes?.currentModeId).toBe("plan");

  // Broken: the deny still holds, and one card says what is wrong, however many turns run.
  writeFileSync(cfgFile, `${denied}  bogus: [x]\n`);
  expect(await writes(a, sessionId, "two.txt")).toBe(false);
  expect(await writes(a, sessionId, "two.txt")).toBe(false);
  const said = noticeCards(a, sessionId).filter((c) => c.includes("stays in force"));
  expect(said).toHaveLength(1);
  expect(said[0]).toContain("permissions.bogus");
  expect(said[0]).toContain("is not a known key");

  // Fixed, without the deny: the write goes through.
  writeFileSync(cfgFile, first);
  expect(await writes(a, sessionId, "two.txt")).toBe(true);
  expect(noticeCards(a, sessionId).some((c) => c.includes("reads again"))).toBe(true);
}, 120_000);

test("a hook written into config.yaml under serve --stdio runs at the open session's next tool call", async () => {
  a = await startStdioAgent();
  await a.agent.request("initialize", initializeParams);
  const cfgFile = join(a.box.configDir, "config.yaml");
  const ran = join(a.box.dir, "hook-ran.txt");
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as Made;
  expect(await writes(a, sessionId, "one.txt")).toBe(true);
  expect(existsSync(ran)).toBe(false);

  writeFileSync(cfgFile, `${readFileSync(cfgFile, "utf8")}hooks:\n  PreToolUse:\n    - matcher: write\n      hooks:\n        - type: command\n          command: echo ran >> ${ran}\n`);
  expect(await writes(a, sessionId, "two.txt")).toBe(true);
  expect(readFileSync(ran, "utf8")).toBe("ran\n");
}, 60_000);

test("a connection and a model written into config.yaml under serve --stdio are a new session's; the open one keeps its own", async () => {
  a = await startStdioAgent();
  const other = await startModel();
  try {
    await a.agent.request("initialize", initializeParams);
    const cfgFile = join(a.box.configDir, "config.yaml");
    const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as Made;
    writeFileSync(cfgFile, `${readFileSync(cfgFile, "utf8").replace("model: test/test-model", "model: other/test-model\neffort: high")}  other:\n    base_url: ${other.url}\n`);
    const fresh = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as Made;
    other.push(step({ text: "from the other" }));
    await a.agent.request("session/prompt", { sessionId: fresh.sessionId, prompt: [{ type: "text", text: "hi" }] });
    const asked = other.requests.filter((r) => isStep(r.body));
    expect(asked).toHaveLength(1);
    expect(asked[0]?.body.reasoning_effort).toBe("high");
    a.model.push(step({ text: "from the first" }));
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(other.requests.filter((r) => isStep(r.body))).toHaveLength(1);
  } finally {
    await other.close();
  }
}, 60_000);
