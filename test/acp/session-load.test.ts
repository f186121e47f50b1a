/**
 * Threads that come back whole (issue 31, items 3 and 6): on `serve --stdio`, session/load replays
 * a session's history as the session/updates the live stream sent, in order, then the session is
 * live; session/close ends its work here and frees it; session/fork makes a new session with its
 * history, the original unchanged. Bad ids are -32602 with a sentence.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { openDb } from "../../src/store/db.ts";
import { appendMessage, listMessages } from "../../src/store/messages.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

/** A device whose store outlives its agents: each agent runs where the first did. */
type Place = { box: Sandbox; project: string; model: ScriptedModel };

const agents: StdioAgent[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) {
    // Nothing but protocol messages on stdout, whatever the test did.
    for (const line of agent.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    await agent.close();
  }
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function place(): Promise<Place> {
  const model = await startModel();
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
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

const dbOf = (p: Place) => openDb(join(p.box.stateDir, "lembas.db"));

/** An update as the test compares it: what a client shows of it. */
function shown(n: acp.SessionNotification): Record<string, unknown> {
  const u = n.update as Record<string, unknown>;
  const pick = (...keys: string[]) => Object.fromEntries(keys.filter((k) => u[k] !== undefined).map((k) => [k, u[k]]));
  return { sessionUpdate: u.sessionUpdate, ...pick("content", "status", "title", "kind", "rawInput", "entries") };
}

/** A session's updates but for those that say its state (commands, title, usage: session-load-whole.test.ts has those). */
const ofSession = (agent: StdioAgent, sessionId: string) =>
  agent.updates.filter((u) => u.sessionId === sessionId && !["available_commands_update", "session_info_update", "usage_update"].includes(u.update.sessionUpdate));

/** A two-turn session made by real turns: a write (its diff from nothing), then an edit (a diff of the file) and a plan. */
async function twoTurns(p: Place): Promise<{ sessionId: string; live: acp.SessionNotification[] }> {
  const a = await agentAt(p);
  const { sessionId } = await a.agent.request("session/new", { cwd: p.project, mcpServers: [] });
  p.model.push(
    step({ reasoning: "a new file", toolCalls: [{ name: "write", arguments: { path: "hello.md", content: "# Hi\nthere\n" } }] }),
    step({ text: "Wrote hello.md." }),
  );
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write hello.md" }] })).stopReason).toBe("end_turn");
  p.model.push(
    step({
      toolCalls: [
        { name: "todo", arguments: { todos: [{ content: "greet louder", status: "in_progress" }] } },
        { name: "edit", arguments: { path: "hello.md", old_string: "# Hi", new_string: "# Hello" } },
      ],
    }),
    step({ text: "Louder now." }),
  );
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "say hello instead" }] })).stopReason).toBe("end_turn");
  expect(readFileSync(join(p.project, "hello.md"), "utf8")).toBe("# Hello\nthere\n");
  const live = ofSession(a, sessionId);
  await stop(a);
  return { sessionId, live };
}

test("session/load replays a two-turn session with its tool calls, diffs and plan, in order, as the live stream showed them; then a prompt goes on", async () => {
  const p = await place();
  const { sessionId, live } = await twoTurns(p);

  const b = await startStdioAgent({ device: { box: p.box, project: p.project }, model: p.model });
  agents.push(b);
  const init = (await b.agent.request("initialize", initializeParams)) as acp.InitializeResponse;
  expect(init.agentCapabilities?.loadSession).toBe(true);
  const answer = await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  expect(answer.modes?.currentModeId).toBe("edit");
  expect(answer.configOptions?.map((o) => o.id)).toEqual(["mode", "model", "effort"]);
  const replay = ofSession(b, sessionId);

  // The person's messages, then each turn as it went: thought, calls with their diffs, the plan, the answers.
  const kinds = replay.map((u) => u.update.sessionUpdate);
  expect(kinds).toEqual([
    "user_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "tool_call_update",
    "agent_message_chunk",
    "user_message_chunk",
    "tool_call",
    "tool_call",
    "tool_call_update",
    "plan",
    "tool_call_update",
    "tool_call_update",
    "tool_call_update",
    "agent_message_chunk",
  ]);
  const texts = (kind: string, updates: acp.SessionNotification[]) =>
    updates.filter((u) => u.update.sessionUpdate === kind).map((u) => ((u.update as { content: { text: string } }).content.text));
  expect(texts("user_message_chunk", replay)).toEqual(["write hello.md", "say hello instead"]);
  expect(texts("agent_message_chunk", replay)).toEqual(["Wrote hello.md.", "Louder now."]);
  expect(texts("agent_thought_chunk", replay).join("")).toBe(texts("agent_thought_chunk", live).join(""));

  // Each call ends as it ended live: status, title, content (the diffs whole, as shown then).
  const ends = (updates: acp.SessionNotification[]) => updates.filter((u) => ["completed", "failed"].includes(String((u.update as { status?: string }).status))).map(shown);
  expect(ends(replay)).toEqual(ends(live));
  const diffs: unknown[] = ends(replay).flatMap((u) => (u.content as { type: string }[]).filter((c) => c.type === "diff"));
  expect(diffs).toEqual([
    { type: "diff", path: join(p.project, "hello.md"), oldText: null, newText: "# Hi\nthere\n" },
    { type: "diff", path: join(p.project, "hello.md"), oldText: "# Hi\nthere\n", newText: "# Hello\nthere\n" },
  ]);
  const started = (updates: acp.SessionNotification[]) => updates.filter((u) => (u.update as { status?: string }).status === "in_progress").map(shown);
  expect(started(replay)).toEqual(started(live));
  expect(replay.filter((u) => u.update.sessionUpdate === "plan").map(shown)).toEqual(live.filter((u) => u.update.sessionUpdate === "plan").map(shown));

  // The answer came after the last replayed update.
  const answerLine = b.stdoutLines.findIndex((l) => l.includes('"result"') && l.includes('"configOptions"'));
  const lastReplayed = b.stdoutLines.findLastIndex((l) => l.includes('"session/update"') && l.includes("Louder now."));
  expect(answerLine).toBeGreaterThan(lastReplayed);

  // Live: a prompt goes on with the whole history, and its updates reach this editor.
  p.model.push(step({ text: "third answer" }));
  expect((await b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now?" }] })).stopReason).toBe("end_turn");
  const sent = JSON.stringify(p.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
  expect(sent).toContain("say hello instead");
  expect(sent).toContain("Louder now.");
  expect(texts("agent_message_chunk", ofSession(b, sessionId)).join("")).toEndWith("third answer");
  await b.waitForLine((l) => l.includes("available_commands_update"));
});

test("session/close cancels the session's turn and frees it: another process may load it, and this one loads it again", async () => {
  const p = await place();
  const a = await agentAt(p);
  const { sessionId } = await a.agent.request("session/new", { cwd: p.project, mcpServers: [] });
  p.model.push(step({ text: "kept" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first" }] });

  p.model.push(step({ text: ["one ", "two ", "three ", "four ", "five"], chunkDelayMs: 400 }));
  const running = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "count slowly" }] });
  await a.waitForLine((l) => l.includes('"one "'));
  expect(await a.agent.request("session/close", { sessionId })).toEqual({});
  expect((await running).stopReason).toBe("cancelled");

  // Let go of here: a prompt names a session this connection no longer has.
  const gone = await rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] }));
  expect(gone.code).toBe(-32602);
  expect(gone.message).toContain(`there is no session ${sessionId} on this connection`);

  // Freed: another process loads it while this one runs, then lets go of it in turn.
  const b = await agentAt(p);
  await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  expect(ofSession(b, sessionId).filter((u) => u.update.sessionUpdate === "user_message_chunk").length).toBe(2);
  expect(await b.agent.request("session/close", { sessionId })).toEqual({});
  // Closing what is not open here is nothing to do.
  expect(await b.agent.request("session/close", { sessionId })).toEqual({});

  // And this one opens it again from the store, live.
  const before = a.updates.length;
  await a.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  const again = a.updates.slice(before).filter((u) => u.sessionId === sessionId);
  expect(again[0]?.update).toMatchObject({ sessionUpdate: "user_message_chunk", content: { text: "first" } });
  p.model.push(step({ text: "back again" }));
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello?" }] })).stopReason).toBe("end_turn");
});

test("session/fork makes a new session with the original's history; the original is unchanged", async () => {
  const p = await place();
  const a = await agentAt(p);
  const init = (await a.agent.request("initialize", initializeParams)) as { agentCapabilities: { sessionCapabilities: unknown } };
  expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ fork: {}, close: {} });
  const { sessionId } = await a.agent.request("session/new", { cwd: p.project, mcpServers: [] });
  p.model.push(step({ text: "the word is pumpkin" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "pick a word" }] });
  const db = dbOf(p);
  cleanups.unshift(() => db.close());
  const original = listMessages(db, sessionId).map((m) => m.body);

  const fork = await a.agent.request<{ sessionId: string; modes: { currentModeId: string } }>("session/fork", { sessionId, cwd: p.project, mcpServers: [] });
  expect(fork.sessionId).toStartWith("ses_");
  expect(fork.sessionId).not.toBe(sessionId);
  expect(fork.modes.currentModeId).toBe("edit");
  p.model.push(step({ text: "pumpkin, in the fork" }));
  expect((await a.agent.request("session/prompt", { sessionId: fork.sessionId, prompt: [{ type: "text", text: "which word?" }] })).stopReason).toBe("end_turn");
  const sent = JSON.stringify(p.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
  expect(sent).toContain("pick a word");
  expect(sent).toContain("the word is pumpkin");

  expect(listMessages(db, sessionId).map((m) => m.body)).toEqual(original);
  expect(listMessages(db, fork.sessionId).map((m) => m.body).slice(0, original.length)).toEqual(original);
  // The fork's history comes back whole too.
  await a.agent.request("session/close", { sessionId: fork.sessionId });
  const before = a.updates.length;
  await a.agent.request("session/load", { sessionId: fork.sessionId, cwd: p.project, mcpServers: [] });
  const replayed = a.updates.slice(before).filter((u) => u.update.sessionUpdate === "user_message_chunk");
  expect(replayed.map((u) => (u.update as { content: { text: string } }).content.text)).toEqual(["pick a word", "which word?"]);
});

test("session/load and session/fork of a session held by another process, deleted, unknown or another device's: -32602 with a sentence", async () => {
  const p = await place();
  const holder = await agentAt(p);
  const { sessionId: held } = await holder.agent.request("session/new", { cwd: p.project, mcpServers: [] });
  const { sessionId: doomed } = await holder.agent.request("session/new", { cwd: p.project, mcpServers: [] });
  await holder.agent.request("session/close", { sessionId: doomed });
  const deleted = await runLembas(p.box, ["sessions", "delete", doomed]);
  expect(deleted.code).toBe(0);

  const elsewhere = await place();
  const other = await agentAt(elsewhere);
  const { sessionId: foreign } = await other.agent.request("session/new", { cwd: elsewhere.project, mcpServers: [] });

  const b = await agentAt(p);
  const load = (sessionId: string) => rpcError(b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] }));
  const heldError = await load(held);
  expect(heldError.code).toBe(-32602);
  expect(heldError.message).toContain(`session ${held} is open in another lembas process`);
  for (const id of [doomed, "ses_none", foreign]) {
    const error = await load(id);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`there is no session ${id} on this device`);
  }
  const forkHeld = await rpcError(b.agent.request("session/fork", { sessionId: held, cwd: p.project, mcpServers: [] }));
  expect(forkHeld.code).toBe(-32602);
  expect(forkHeld.message).toContain("open in another lembas process");
  const forkNone = await rpcError(b.agent.request("session/fork", { sessionId: "ses_none", cwd: p.project, mcpServers: [] }));
  expect(forkNone.message).toContain("there is no session ses_none on this device");
  const closeNone = await rpcError(b.agent.request("session/close", { sessionId: "ses_none" }));
  expect(closeNone.code).toBe(-32602);
  // Nothing was replayed for any of them.
  expect(b.updates.filter((u) => u.update.sessionUpdate !== "available_commands_update")).toEqual([]);
});

test("session/load with an empty sessionId, which ACP's params check lets through, is -32602 saying what it takes", async () => {
  const p = await place();
  const a = await agentAt(p);
  const error = await rpcError(a.agent.request("session/load", { sessionId: "", cwd: p.project, mcpServers: [] }));
  expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("session/load takes a sessionId, a cwd and mcpServers") });
});

test("a session of 2,000 turns is replayed whole and in order", async () => {
  const p = await place();
  const db = dbOf(p);
  const id = "ses_long000000000000000000";
  insertSession(db, { id, root: p.project, cwd: p.project, mode: "edit", model: null, effort: "medium", origin: "stdio", title: "long" });
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) {
      appendMessage(db, id, "user", { text: `question ${i}` }, `turn-${i}`);
      appendMessage(db, id, "assistant", { text: `answer ${i}`, reasoning: "", toolCalls: [] }, `turn-${i}`);
    }
  })();
  db.close();
  const a = await agentAt(p);
  await a.agent.request("session/load", { sessionId: id, cwd: p.project, mcpServers: [] });
  const texts = ofSession(a, id).map((u) => `${u.update.sessionUpdate}:${(u.update as { content: { text: string } }).content.text}`);
  expect(texts.length).toBe(4000);
  expect(texts).toEqual(Array.from({ length: 2000 }, (_, i) => [`user_message_chunk:question ${i + 1}`, `agent_message_chunk:answer ${i + 1}`]).flat());
}, 60_000);

test("session/load, resume and fork check cwd as session/new does, and refuse a session of another project", async () => {
  const p = await place();
  const other = join(p.box.dir, "other");
  const sub = join(p.project, "sub");
  mkdirSync(other);
  mkdirSync(sub);
  const holder = await agentAt(p);
  const { sessionId: elsewhere } = await holder.agent.request("session/new", { cwd: other, mcpServers: [] });
  const { sessionId: below } = await holder.agent.request("session/new", { cwd: sub, mcpServers: [] });
  await stop(holder);

  const b = await agentAt(p);
  for (const method of ["session/load", "session/resume", "session/fork"] as const) {
    const ask = (sessionId: string, cwd: string) => rpcError(b.agent.request(method, { sessionId, cwd, mcpServers: [] }));
    const relative = await ask(below, "project");
    expect(relative.code).toBe(-32602);
    expect(relative.message).toContain('cwd must be an absolute path, not "project"');
    const missing = await ask(below, join(p.project, "gone"));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain(`cwd ${join(p.project, "gone")} is not an existing directory`);
    const foreign = await ask(elsewhere, p.project);
    expect(foreign.code).toBe(-32602);
    expect(foreign.message).toContain(`session ${elsewhere} belongs to the project at ${other}`);
  }
  // Nothing was opened or replayed for them.
  expect(b.updates.filter((u) => u.update.sessionUpdate !== "available_commands_update")).toEqual([]);
  // A session of a folder inside the editor's project is its own.
  await b.agent.request("session/load", { sessionId: below, cwd: p.project, mcpServers: [] });
  p.model.push(step({ text: "here" }));
  expect((await b.agent.request("session/prompt", { sessionId: below, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
});
