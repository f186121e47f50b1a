import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, lembasEvents, newSession, startDevice } from "../support/device.ts";
import { helperStep, ownStep } from "../support/engine.ts";
import { type ChatRequest, contentText, type Reply, type ScriptedModel } from "../support/model.ts";

/** The parent calls task; its helper greps, reads, answers; the parent answers. */
function pushTask(model: ScriptedModel): void {
  model.push(
    ownStep({ toolCalls: [{ id: "call_task", name: "task", arguments: { description: "find the needle", prompt: "Where is needle?" } }] }),
    helperStep({ toolCalls: [{ id: "h1", name: "grep", arguments: { pattern: "needle" } }] }),
    helperStep({ toolCalls: [{ id: "h2", name: "read", arguments: { path: "a.txt" } }] }),
    helperStep({ text: "a.txt:2" }),
    ownStep({ text: "In a.txt." }),
  );
}

const isScribe = (body: ChatRequest) => contentText(body.messages?.[0]?.content).includes('You work as the agent "scribe"');
/** The scribe's request after it made `done` assistant messages. */
const scribeStep = (done: number, reply: Reply): Reply => ({ ...reply, match: (b) => isScribe(b) && (b.messages ?? []).filter((m) => m.role === "assistant").length === done });

/** A writing agent in the project, and a notes.txt it rewrites when the parent's task call asks it. */
function pushScribe(model: ScriptedModel, project: string): void {
  mkdirSync(join(project, ".agent", "agents"), { recursive: true });
  writeFileSync(join(project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
  writeFileSync(join(project, "notes.txt"), "old line\n");
  model.push(
    ownStep({ toolCalls: [{ id: "call_task", name: "task", arguments: { description: "rewrite the notes", prompt: "Rewrite notes.txt", agent: "scribe" } }] }),
    scribeStep(0, { toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.txt" } }] }),
    scribeStep(1, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "by the agent\n" } }] }),
    scribeStep(2, { text: "wrote notes.txt" }),
    ownStep({ text: "Done." }),
  );
}

describe("a task call's helper, as ACP clients see it", () => {
  let a: StdioAgent | null = null;
  let d: Device | null = null;
  afterEach(async () => {
    await a?.close();
    await d?.close();
    a = d = null;
  });

  test("an editor (and a client saying _meta.lembas, on stdio) sees the helper's calls listed in the task call's content", async () => {
    a = await startStdioAgent();
    writeFileSync(join(a.project, "a.txt"), "one\nneedle\n");
    pushTask(a.model);
    await a.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } });
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    expect(await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "where?" }] })).toMatchObject({ stopReason: "end_turn" });
    const updates = a.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.toolCallId === "call_task");
    expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", title: "task", kind: "think" });
    const texts = updates.flatMap((u) => (Array.isArray(u.content) ? [(u.content[0] as { content: { text: string } }).content.text] : []));
    expect(texts).toEqual([
      '○ Search for "needle"',
      '● Search for "needle"',
      '● Search for "needle"\n○ Read a.txt',
      '● Search for "needle"\n● Read a.txt',
      "a.txt:2",
    ]);
    expect(updates.at(-1)).toMatchObject({ status: "completed" });
    // The helper's own calls are no calls of the session's.
    expect(a.updates.filter((u) => u.update.sessionUpdate === "tool_call")).toHaveLength(1);
  });

  test("a writing helper's edit is a diff content of the task call, as it comes and once the task ended", async () => {
    a = await startStdioAgent();
    pushScribe(a.model, a.project);
    await a.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    expect(await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "rewrite the notes" }] })).toMatchObject({ stopReason: "end_turn" });
    const updates = a.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.toolCallId === "call_task" && Array.isArray(u.content));
    const diff = { type: "diff", path: join(a.project, "notes.txt"), oldText: "old line\n", newText: "by the agent\n" };
    const written = updates.find((u) => JSON.stringify(u.content).includes("● Write notes.txt"));
    expect(written?.content).toEqual([{ type: "content", content: { type: "text", text: "● Read notes.txt\n● Write notes.txt" } }, diff]);
    expect(updates.at(-1)).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "wrote notes.txt" } }, diff] });
  });

  test("LLeMbas on the link gets a writing helper's diff in its sub_tool event", async () => {
    d = await startDevice();
    const link = await d.serve();
    pushScribe(d.model, d.project);
    const sessionId = await newSession(link, d.project);
    await link.request("session/set_mode", { sessionId, modeId: "edit" });
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "rewrite the notes" }] });
    const written = lembasEvents(link, sessionId).find((e) => e.type === "sub_tool" && e.callId === "w1" && e.status === "completed");
    expect(written?.diffs).toEqual([{ path: join(d.project, "notes.txt"), oldText: "old line\n", newText: "by the agent\n" }]);
  });

  test("LLeMbas on the link gets the sub_tool events in _lembas/event", async () => {
    d = await startDevice();
    const link = await d.serve();
    writeFileSync(join(d.project, "a.txt"), "one\nneedle\n");
    pushTask(d.model);
    const sessionId = await newSession(link, d.project);
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "where?" }] });
    const subs = lembasEvents(link, sessionId).filter((e) => e.type === "sub_tool");
    expect(subs).toEqual([
      { type: "sub_tool", parentCallId: "call_task", callId: "h1", name: "grep", title: 'Search for "needle"', status: "in_progress" },
      { type: "sub_tool", parentCallId: "call_task", callId: "h1", name: "grep", title: 'Search for "needle"', status: "completed" },
      { type: "sub_tool", parentCallId: "call_task", callId: "h2", name: "read", title: "Read a.txt", status: "in_progress" },
      { type: "sub_tool", parentCallId: "call_task", callId: "h2", name: "read", title: "Read a.txt", status: "completed" },
    ]);
  });
});

describe("a custom agent's mode, as an editor changes it", () => {
  let a: StdioAgent | null = null;
  afterEach(async () => {
    await a?.close();
    a = null;
  });
  const isWriter = (body: ChatRequest) => contentText(body.messages?.[0]?.content).includes('You work as the agent "writer"');
  const writerStep = (done: number, reply: Reply): Reply => ({ ...reply, match: (b) => isWriter(b) && (b.messages ?? []).filter((m) => m.role === "assistant").length === done });
  const sessionStep = (reply: Reply): Reply => ({ ...reply, match: (b) => (b.tools?.length ?? 0) > 0 && !isWriter(b) });

  test("a mode lowered to plan while the agent works holds for its next call: its write is refused as the session's would be", async () => {
    a = await startStdioAgent();
    const agent = a;
    mkdirSync(join(agent.project, ".agent", "agents"), { recursive: true });
    writeFileSync(join(agent.project, ".agent", "agents", "writer.md"), "---\nname: writer\ndescription: Writes\ntools: Bash, Write\n---\nYou write.\n");
    agent.model.push(
      sessionStep({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "make", prompt: "make files", agent: "writer" } }] }),
      writerStep(0, { toolCalls: [{ id: "b1", name: "bash", arguments: { command: "touch one.txt" } }] }),
      writerStep(1, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "two.txt", content: "x\n" } }] }),
      writerStep(2, { text: "made what I could" }),
      sessionStep({ text: "done" }),
    );
    await agent.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], _meta: { mode: "edit" } });
    // The person, asked about the agent's command, first lowers the mode to plan, then allows that one command.
    agent.onPermission = async () => {
      await agent.agent.request("session/set_mode", { sessionId, modeId: "plan" });
      return { outcome: { outcome: "selected", optionId: "once" } };
    };
    expect(await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make files" }] })).toMatchObject({ stopReason: "end_turn" });
    expect(agent.permissionRequests).toHaveLength(1);
    expect(existsSync(join(agent.project, "one.txt"))).toBe(true);
    expect(existsSync(join(agent.project, "two.txt"))).toBe(false);
    const last = agent.model.requests.filter((r) => isWriter(r.body)).at(-1)?.body;
    const results = (last?.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));
    expect(results[1]).toContain("plan mode");
  });
});
