/**
 * A replay that is whole (issue 31): session/load shows a task call's helper diffs, an MCP tool
 * call's title as it was live ("server: tool …"), and then the session's title and its context's
 * fill, as the live stream showed them.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isTitle, ownStep, step } from "../support/engine.ts";
import { type ChatRequest, contentText, type Reply, type ScriptedModel, startModel } from "../support/model.ts";
import { ROOT, type Sandbox, sandbox } from "../support/run.ts";

type Place = { box: Sandbox; project: string; model: ScriptedModel };

const agents: StdioAgent[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function place(window = 40_000): Promise<Place> {
  const model = await startModel();
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    context: ${window}\n`);
  cleanups.push(() => model.close(), () => box.cleanup());
  return { box, project, model };
}

async function agentAt(p: Place): Promise<StdioAgent> {
  const agent = await startStdioAgent({ device: { box: p.box, project: p.project }, model: p.model });
  agents.push(agent);
  await agent.agent.request("initialize", initializeParams);
  return agent;
}

async function stop(agent: StdioAgent): Promise<void> {
  agents.splice(agents.indexOf(agent), 1);
  await agent.close();
}

/** Runs one prompt in a new session and lets go of it; the session's updates as they came live. */
async function liveSession(p: Place, text: string, mcpServers: object[] = [], title?: string): Promise<{ sessionId: string; live: acp.SessionNotification[] }> {
  const a = await agentAt(p);
  const { sessionId } = (await a.agent.request("session/new", { cwd: p.project, mcpServers, _meta: { mode: "auto" } })) as { sessionId: string };
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).stopReason).toBe("end_turn");
  // The model names the session after the turn: its title is waited for before the agent goes.
  if (title) await a.waitForLine((l) => l.includes("session_info_update") && l.includes(title));
  const live = a.updates.filter((u) => u.sessionId === sessionId);
  await stop(a);
  return { sessionId, live };
}

async function loaded(p: Place, sessionId: string): Promise<acp.SessionNotification[]> {
  const b = await agentAt(p);
  await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  return b.updates.filter((u) => u.sessionId === sessionId);
}

const callUpdates = (updates: acp.SessionNotification[], callId: string) =>
  updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.toolCallId === callId);

const isScribe = (body: ChatRequest) => contentText(body.messages?.[0]?.content).includes('You work as the agent "scribe"');
const scribeStep = (done: number, reply: Reply): Reply => ({ ...reply, match: (b) => isScribe(b) && (b.messages ?? []).filter((m) => m.role === "assistant").length === done });

test("a task call's helper diffs come back with session/load, after its answer, as its end showed them live", async () => {
  const p = await place();
  mkdirSync(join(p.project, ".agent", "agents"), { recursive: true });
  writeFileSync(join(p.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
  writeFileSync(join(p.project, "notes.txt"), "old line\n");
  p.model.push(
    ownStep({ toolCalls: [{ id: "call_task", name: "task", arguments: { description: "rewrite the notes", prompt: "Rewrite notes.txt", agent: "scribe" } }] }),
    scribeStep(0, { toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.txt" } }] }),
    scribeStep(1, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "by the agent\n" } }] }),
    scribeStep(2, { text: "wrote notes.txt" }),
    ownStep({ text: "Done." }),
  );
  const { sessionId, live } = await liveSession(p, "rewrite the notes");
  const liveEnd = callUpdates(live, "call_task").at(-1);
  const diff = { type: "diff", path: join(p.project, "notes.txt"), oldText: "old line\n", newText: "by the agent\n" };
  expect(liveEnd).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "wrote notes.txt" } }, diff] });

  const replayedEnd = callUpdates(await loaded(p, sessionId), "call_task").at(-1);
  expect(replayedEnd?.status).toBe("completed");
  expect(replayedEnd?.content).toEqual(liveEnd?.content);
});

test("an MCP tool call comes back with the title it had live, naming its server", async () => {
  const p = await place();
  const server = { name: "notes", command: process.execPath, args: [join(ROOT, "test/support/mcp-server.ts")], env: [] };
  p.model.push(step({ toolCalls: [{ id: "m1", name: "mcp__notes__echo", arguments: { text: "hi there" } }] }), step({ text: "echoed" }));
  const { sessionId, live } = await liveSession(p, "echo something", [server]);
  const liveTitle = callUpdates(live, "m1").findLast((u) => u.status === "in_progress")?.title;
  expect(String(liveTitle)).toStartWith("notes: echo");

  // Loaded without the server: the title is the one shown live, not the bare name.
  const replayed = callUpdates(await loaded(p, sessionId), "m1");
  expect(replayed.findLast((u) => u.status === "in_progress")?.title).toBe(liveTitle);
  expect(replayed.at(-1)?.status).toBe("completed");
});

test("after session/load the editor gets the session's title and its context's fill, before the answer", async () => {
  const p = await place(40_000);
  p.model.push({ match: isTitle, text: "Greeting the world" }, step({ text: "Hello, world.", usage: { prompt_tokens: 900, completion_tokens: 10 } }));
  const { sessionId, live } = await liveSession(p, "say hello", [], "Greeting the world");
  expect(live.some((u) => u.update.sessionUpdate === "usage_update")).toBe(true);

  const b = await agentAt(p);
  await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  const updates = b.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update as Record<string, unknown>);
  const info = updates.filter((u) => u.sessionUpdate === "session_info_update");
  expect(info.map((u) => u.title)).toEqual(["Greeting the world"]);
  expect(new Date(String(info[0]?.updatedAt)).toISOString()).toBe(String(info[0]?.updatedAt));
  const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
  expect(usage).toHaveLength(1);
  expect(usage[0]).toMatchObject({ size: 40_000, _meta: { lembas: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } } });
  // The history's tokens, estimated: more than nothing, far less than the window.
  expect(Number(usage[0]?.used)).toBeGreaterThan(0);
  expect(Number(usage[0]?.used)).toBeLessThan(1_000);
  // Both after the replay, before the answer.
  const kinds = updates.map((u) => u.sessionUpdate);
  expect(kinds.indexOf("session_info_update")).toBeGreaterThan(kinds.lastIndexOf("agent_message_chunk"));
  const answerLine = b.stdoutLines.findIndex((l) => l.includes('"result"') && l.includes('"configOptions"'));
  expect(b.stdoutLines.findLastIndex((l) => l.includes('"usage_update"'))).toBeLessThan(answerLine);
});

test("after session/fork the editor gets the fork's title and its context's fill, after the answer", async () => {
  const p = await place(40_000);
  p.model.push({ match: isTitle, text: "Greeting the world" }, step({ text: "Hello, world.", usage: { prompt_tokens: 900, completion_tokens: 10 } }));
  const { sessionId } = await liveSession(p, "say hello", [], "Greeting the world");

  const b = await agentAt(p);
  const fork = await b.agent.request<{ sessionId: string }>("session/fork", { sessionId, cwd: p.project, mcpServers: [] });
  await b.waitForUpdate((u) => u.sessionId === fork.sessionId && u.update.sessionUpdate === "usage_update", 30_000);
  const updates = b.updates.filter((u) => u.sessionId === fork.sessionId).map((u) => u.update as Record<string, unknown>);
  const info = updates.filter((u) => u.sessionUpdate === "session_info_update");
  expect(info).toHaveLength(1);
  expect(String(info[0]?.title)).toContain("Greeting the world");
  const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
  expect(usage).toHaveLength(1);
  expect(usage[0]).toMatchObject({ size: 40_000, _meta: { lembas: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } } });
  expect(Number(usage[0]?.used)).toBeGreaterThan(0);
  expect(Number(usage[0]?.used)).toBeLessThan(1_000);
  // After the answer, which names the fork: an editor drops updates for a session it does not know yet.
  const answerLine = b.stdoutLines.findIndex((l) => l.includes('"result"') && l.includes(fork.sessionId));
  expect(b.stdoutLines.findIndex((l) => l.includes('"session_info_update"'))).toBeGreaterThan(answerLine);
});
