/**
 * Tool calls an editor can keep apart and read (r9 review, findings 1–3): a call's toolCallId is
 * unique in the session even when the model's server numbers calls per reply (`call_0` in every
 * step) or gives two calls of one reply the same id, live and in session/load's replay, while the
 * model still sees each call paired with its result; notice cards keep ids of their own across
 * session/close and session/resume; and a call refused before it ran shows the sentence the model got.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

const agents: StdioAgent[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Place = { box: Sandbox; project: string; model: ScriptedModel };

/** A sandbox and a model that outlive one agent: session/load reads what an earlier one stored. */
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

type U = Record<string, unknown>;
const updatesOf = (agent: StdioAgent, sessionId: string): U[] => agent.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update as U);
const announced = (updates: U[]) => updates.filter((u) => u.sessionUpdate === "tool_call");
const textOf = (u: U | undefined) => ((u?.content as { content?: { text?: string } }[] | undefined) ?? []).map((c) => c.content?.text ?? "").join("");

async function newSession(agent: StdioAgent, mcpServers: unknown[] = [], mode = "auto"): Promise<string> {
  return ((await agent.agent.request("session/new", { cwd: agent.project, mcpServers: mcpServers as never, _meta: { mode } })) as { sessionId: string }).sessionId;
}

const bash = (id: string, command: string) => ({ id, name: "bash", arguments: { command, description: command } });

/** What the model was last sent of the calls and their results: each assistant's call ids, each result's. */
function pairing(agent: StdioAgent): { calls: string[]; results: { id: string; content: string }[] } {
  const messages = agent.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  const calls = messages.flatMap((m) => ((m as { tool_calls?: { id: string }[] }).tool_calls ?? []).map((c) => c.id));
  const results = messages.filter((m) => m.role === "tool").map((m) => ({ id: String((m as { tool_call_id?: string }).tool_call_id), content: JSON.stringify(m.content) }));
  return { calls, results };
}

/** Each call's card as the client keeps it (upserted by toolCallId): its title, last status and text. */
function cardsById(updates: U[]): Map<string, { title: unknown; status: unknown; text: string }> {
  const cards = new Map<string, { title: unknown; status: unknown; text: string }>();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const id = String(u.toolCallId);
    const card = cards.get(id) ?? { title: undefined, status: undefined, text: "" };
    if (u.title !== undefined) card.title = u.title;
    if (u.status !== undefined) card.status = u.status;
    if (u.content !== undefined) card.text = textOf(u);
    cards.set(id, card);
  }
  return cards;
}

test("a server that numbers its calls call_0 in every step gives the editor two calls with ids of their own, live and replayed, each paired with its result for the model", async () => {
  const p = await place();
  const a = await agentAt(p);
  const sessionId = await newSession(a);
  p.model.push(step({ toolCalls: [bash("call_0", "echo one")] }), step({ toolCalls: [bash("call_0", "echo two")] }), step({ text: "done" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });

  const ids = announced(updatesOf(a, sessionId)).map((c) => String(c.toolCallId));
  expect(ids).toHaveLength(2);
  expect(ids[0]).toBe("call_0");
  expect(ids[1]).not.toBe("call_0");
  const live = cardsById(updatesOf(a, sessionId));
  expect(live.get(ids[0]!)).toMatchObject({ status: "completed" });
  expect(live.get(ids[0]!)?.text).toContain("one");
  expect(live.get(ids[1]!)?.text).toContain("two");

  const seen = pairing(a);
  expect(seen.calls).toEqual(ids);
  expect(seen.results.map((r) => r.id)).toEqual(ids);
  expect(seen.results[1]?.content).toContain("two");
  await stop(a);

  // The stored history has the same ids: session/load replays two cards, as they were live.
  const b = await agentAt(p);
  await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  expect(announced(updatesOf(b, sessionId)).map((c) => String(c.toolCallId))).toEqual(ids);
  const replayed = cardsById(updatesOf(b, sessionId));
  expect(replayed.get(ids[0]!)?.text).toContain("one");
  expect(replayed.get(ids[1]!)?.text).toContain("two");

  // A later turn whose server says call_0 again gets a new id too, though the process is new.
  p.model.push(step({ toolCalls: [bash("call_0", "echo three")] }), step({ text: "done" }));
  await b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
  const third = announced(updatesOf(b, sessionId)).map((c) => String(c.toolCallId)).at(-1);
  expect(ids).not.toContain(third);
  expect(pairing(b).results.map((r) => r.id)).toEqual([...ids, third!]);
}, 60_000);

test("a session an older lembas stored with call_0 in every step is replayed with an id of its own for each call", async () => {
  const p = await place();
  const a = await agentAt(p);
  const sessionId = await newSession(a);
  p.model.push(step({ toolCalls: [bash("call_0", "echo one")] }), step({ toolCalls: [bash("call_0", "echo two")] }), step({ text: "done" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  await stop(a);
  // As an older version stored it: the server's ids as they came.
  const db = new Database(join(p.box.stateDir, "lembas.db"));
  try {
    for (const row of db.query<{ seq: number; body: string }, [string]>("SELECT seq, body FROM messages WHERE session_id = ? AND role IN ('assistant', 'tool')").all(sessionId)) {
      const body = row.body.replace(/"(id|callId)":"call_[0-9a-f]{24}"/g, '"$1":"call_0"');
      db.query("UPDATE messages SET body = ? WHERE session_id = ? AND seq = ?").run(body, sessionId, row.seq);
    }
  } finally {
    db.close();
  }

  const b = await agentAt(p);
  await b.agent.request("session/load", { sessionId, cwd: p.project, mcpServers: [] });
  const ids = announced(updatesOf(b, sessionId)).map((c) => String(c.toolCallId));
  expect(ids).toHaveLength(2);
  expect(ids[0]).toBe("call_0");
  expect(ids[1]).not.toBe("call_0");
  const replayed = cardsById(updatesOf(b, sessionId));
  expect(replayed.get(ids[0]!)?.text).toContain("one");
  expect(replayed.get(ids[0]!)?.text).not.toContain("two");
  expect(replayed.get(ids[1]!)).toMatchObject({ status: "completed" });
  expect(replayed.get(ids[1]!)?.text).toContain("two");
}, 60_000);

test("two calls with one id in one reply both run, each with an id of its own", async () => {
  const p = await place();
  const a = await agentAt(p);
  const sessionId = await newSession(a);
  p.model.push(step({ toolCalls: [bash("dup", "echo one"), bash("dup", "echo uno")] }), step({ text: "done" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });

  const ids = announced(updatesOf(a, sessionId)).map((c) => String(c.toolCallId));
  expect(ids).toHaveLength(2);
  expect(new Set(ids).size).toBe(2);
  const live = cardsById(updatesOf(a, sessionId));
  expect(live.get(ids[0]!)).toMatchObject({ status: "completed" });
  expect(live.get(ids[0]!)?.text).toContain("one");
  expect(live.get(ids[1]!)).toMatchObject({ status: "completed" });
  expect(live.get(ids[1]!)?.text).toContain("uno");
  const seen = pairing(a);
  expect(seen.calls).toEqual(ids);
  expect(seen.results.map((r) => r.id)).toEqual(ids);
}, 60_000);

test("notice cards after session/close and session/resume on one connection have ids the session has not used", async () => {
  const p = await place();
  const a = await agentAt(p);
  const broken = (name: string) => ({ name, command: join(p.project, `no-such-${name}`), args: [], env: [] });
  const sessionId = await newSession(a, [broken("broken")]);
  p.model.push(step({ text: "hi" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  await a.agent.request("session/close", { sessionId });
  await a.agent.request("session/resume", { sessionId, cwd: p.project, mcpServers: [broken("broken2")] });
  p.model.push(step({ text: "hi again" }));
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
  const notices = () => announced(updatesOf(a, sessionId)).filter((u) => String(u.toolCallId).startsWith("lembas_notice_"));
  for (let i = 0; notices().length < 2; i++) {
    if (i > 500) throw new Error(`never two notice cards: ${JSON.stringify(notices())}`);
    await Bun.sleep(20);
  }
  const [first, second] = notices();
  expect(textOf(first)).toContain('"broken"');
  expect(textOf(second)).toContain('"broken2"');
  expect(second?.toolCallId).not.toBe(first?.toolCallId);
}, 60_000);

test("calls refused before they ran show live the sentence the model got, on a failed card", async () => {
  const p = await place();
  const a = await agentAt(p);
  const sessionId = await newSession(a);
  p.model.push(
    step({ toolCalls: [{ id: "c_json", name: "read", arguments: "{not json" }, { id: "c_none", name: "nosuchtool", arguments: {} }, { id: "c_schema", name: "read", arguments: { nopath: 1 } }] }),
    step({ text: "ok" }),
  );
  await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const told = new Map(pairing(a).results.map((r) => [r.id, r.content]));
  const live = cardsById(updatesOf(a, sessionId));
  for (const [id, words] of [["c_json", "not valid JSON"], ["c_none", "no tool named"], ["c_schema", "Invalid input for read"]] as const) {
    expect(live.get(id)).toMatchObject({ status: "failed" });
    expect(live.get(id)?.text).toContain(words);
    expect(told.get(id)).toContain(words);
  }
}, 60_000);

test("a call whose approval the person cancelled says so on its card", async () => {
  const p = await place();
  const a = await agentAt(p);
  const sessionId = await newSession(a, [], "edit");
  a.onPermission = async () => {
    await a.agent.notify("session/cancel", { sessionId });
    return { outcome: { outcome: "cancelled" } };
  };
  p.model.push(step({ toolCalls: [bash("c_ask", "touch ran.txt")] }), step({ text: "ok" }));
  const answer = (await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })) as { stopReason: string };
  expect(answer.stopReason).toBe("cancelled");
  const card = cardsById(updatesOf(a, sessionId)).get("c_ask");
  expect(card).toMatchObject({ status: "failed" });
  expect(card?.text.toLowerCase()).toContain("cancelled");
}, 60_000);
