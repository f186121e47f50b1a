/**
 * `lembas serve --stdio` through the service: every editor's connection and every link share the
 * service's one engine, yet a session one of them has open is not another's to load, resume, fork
 * or prompt — as serve --stdio with its own engine is refused a session another process holds.
 */
import { afterEach, expect, test } from "bun:test";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { newSession as linkSession, type ServiceTest, sharedServiceEach } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";
import { type StalledEditor, stalledEditor } from "../support/stalled-editor.ts";

let t: ServiceTest;
sharedServiceEach((bound) => {
  t = bound;
});
const agents: StdioAgent[] = [];
const stalled: StalledEditor[] = [];
afterEach(async () => {
  for (const editor of stalled.splice(0)) editor.close();
  for (const agent of agents.splice(0)) await agent.close();
});

async function editor(): Promise<StdioAgent> {
  const agent = await startStdioAgent({ device: t.d, model: t.d.model });
  agents.push(agent);
  await agent.agent.request("initialize", initializeParams);
  return agent;
}

test("an editor cannot load, resume, fork or prompt the session another editor has open in the service, and that editor keeps it when the other leaves", async () => {
  const a = await editor();
  const { sessionId } = await a.agent.request("session/new", { cwd: t.project, mcpServers: [] });
  const b = await editor();
  const asked = { sessionId, cwd: t.project, mcpServers: [] };
  for (const method of ["session/load", "session/resume", "session/fork"] as const) {
    const error = await rpcError(b.agent.request(method as "session/load", asked));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`session ${sessionId} is open in an editor on this device`);
  }
  expect((await rpcError(b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "mine now" }] }))).code).toBe(-32602);
  expect(b.updates.filter((u) => u.sessionId === sessionId)).toEqual([]);
  // Its own editor forks it as ever.
  const fork = await a.agent.request("session/fork" as "session/load", asked);
  expect((fork as unknown as { sessionId: string }).sessionId).not.toBe(sessionId);
  // The other editor's leaving lets go of nothing of A's: A's session still answers A's prompt.
  await b.close();
  agents.splice(agents.indexOf(b), 1);
  t.model.push(step({ text: "still mine" }));
  const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(result.stopReason).toBe("end_turn");
  await a.close();
  agents.splice(agents.indexOf(a), 1);
  // Once A let go of it, the session is anyone's to load.
  const c = await editor();
  await c.agent.request("session/load", asked);
  expect(c.updates.some((u) => u.sessionId === sessionId)).toBe(true);
});

test("an editor cannot load the session the web has open on the service's link", async () => {
  const sessionId = await linkSession(t.link, t.project);
  const b = await editor();
  const error = await rpcError(b.agent.request("session/load", { sessionId, cwd: t.project, mcpServers: [] }));
  expect(error.code).toBe(-32602);
  expect(error.message).toContain(`session ${sessionId} is open in the lembas service for the web`);
});

test("while one editor's session/load replays, another editor's load, resume and fork of it and the web's prompt are refused, and its turns reach only the first", async () => {
  // A stored session whose replay is larger than the service's socket takes unread (rpc/server-websocket.ts waits past 4 MB).
  const c = await editor();
  const { sessionId } = await c.agent.request("session/new", { cwd: t.project, mcpServers: [] });
  t.model.push(step({ text: "hi" }), step({ text: "read it" }));
  await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
  await c.agent.request("session/prompt", { sessionId, prompt: [1, 2, 3].map((n) => ({ type: "text" as const, text: String(n).repeat(8 * 1024 * 1024) })) });
  await c.close();
  agents.splice(agents.indexOf(c), 1);

  // Editor A loads it and stops reading after the first replayed update: its load stays unanswered.
  const a = await stalledEditor(t.d.box);
  stalled.push(a);
  a.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams });
  await a.answer(1);
  const asked = { sessionId, cwd: t.project, mcpServers: [] };
  const held = a.stopAt((m) => m.method === "session/update" && m.params?.sessionId === sessionId);
  a.send({ jsonrpc: "2.0", id: 2, method: "session/load", params: asked });
  await held;

  const b = await editor();
  for (const method of ["session/load", "session/resume", "session/fork"] as const) {
    const error = await rpcError(b.agent.request(method as "session/load", asked));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`session ${sessionId} is open in an editor on this device (another editor's connection`);
  }
  const web = await rpcError(t.link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "the web's" }] }));
  expect(web.message).toContain(`session ${sessionId} is open in an editor on this device`);
  expect(a.messages.some((m) => m.id === 2)).toBe(false);

  a.resume();
  expect((await a.answer(2, 30_000)).result).toBeDefined();
  t.model.push(step({ text: "for A only" }));
  a.send({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "go" }] } });
  expect((await a.answer(3)).result).toMatchObject({ stopReason: "end_turn" });
  expect((await rpcError(b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "mine now" }] }))).code).toBe(-32602);
  expect(b.updates.filter((u) => u.sessionId === sessionId)).toEqual([]);
  expect(b.stdoutLines.filter((line) => line.includes("session/update") && line.includes(sessionId))).toEqual([]);
});
