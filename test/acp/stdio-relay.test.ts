/**
 * `lembas serve --stdio` through the service (src/cli/stdio-service.ts) as a strict editor drives
 * it: what it writes is answered as the process's own engine answers it, however it is cut or
 * framed, and the relay's own end stays the relay's.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { getHold } from "../../src/store/holds.ts";
import { listTurns } from "../../src/store/turns.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";

let t: ServiceTest;
sharedServiceEach((bound) => {
  t = bound;
});
const agents: StdioAgent[] = [];
let own: Device | null = null;
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  await own?.close();
  own = null;
});

async function editor(env: Record<string, string> = {}, device: Device = t.d): Promise<StdioAgent> {
  const agent = await startStdioAgent({ device, model: device.model, env });
  agents.push(agent);
  await agent.agent.request("initialize", initializeParams);
  return agent;
}

/** The stdout lines that answer `id`, once there are `count` of them. */
async function answersTo(agent: StdioAgent, id: unknown, count = 1): Promise<unknown[]> {
  const of = () => agent.stdoutLines.map((line) => JSON.parse(line) as { id?: unknown; method?: unknown }).filter((m) => m.id === id && m.method === undefined);
  await agent.waitForLine(() => of().length >= count, 15_000);
  return of();
}

test("a request named as the relay's end, of id null too, is answered as its own engine answers it, not swallowed", async () => {
  for (const id of ["end-1", null]) {
    const answers: unknown[][] = [];
    for (const env of [{}, { LEMBAS_STDIO_OWN_ENGINE: "1" }] as Record<string, string>[]) {
      const agent = await editor(env);
      agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, method: "_lembas/ipc/editor_end" }));
      answers.push(await answersTo(agent, id));
    }
    expect(answers[0]).toEqual(answers[1] ?? []);
    expect(answers[0]).toMatchObject([{ error: { code: -32601 } }]);
  }
});

test("lines with a BOM, CRLF, two in one write and one cut in single bytes are each answered once, under their own ids", async () => {
  const agent = await editor();
  const list = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "session/list", params: {} });
  const write = (text: string | Uint8Array) => {
    agent.proc.stdin.write(text);
    void agent.proc.stdin.flush();
  };
  write(`\uFEFF${list("bom")}\r\n`);
  write(`${list(1)}\n${list("1")}\n`);
  for (const byte of new TextEncoder().encode(`${list(2.5)}\n`)) write(new Uint8Array([byte]));
  for (const id of ["bom", 1, "1", 2.5]) expect(await answersTo(agent, id)).toMatchObject([{ result: { sessions: expect.any(Array) } }]);
});

test("a cursor of megabytes is refused in a sentence of its own size, not echoed whole", async () => {
  const agent = await editor();
  agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "big", method: "session/list", params: { cursor: "x".repeat(1024 * 1024) } }));
  const [answer] = (await answersTo(agent, "big")) as { error: { code: number; message: string } }[];
  expect(answer?.error.code).toBe(-32602);
  expect(answer?.error.message).toContain("is not one this agent gave");
  expect(answer?.error.message.length).toBeLessThan(300);
});

test("the editor gone while the service's turn waits on its permission answer: the turn is cancelled at once, the session let go, the prompt answered cancelled", async () => {
  const agent = await editor();
  // An editor that never answers: it is about to go.
  agent.onPermission = () => new Promise(() => {});
  t.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "asked.md", content: "yes\n" } }] }), step({ text: "written" }));
  const { sessionId } = await agent.agent.request("session/new", { cwd: t.project, mcpServers: [], _meta: { mode: "manual" } });
  void agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write it" }] }).catch(() => {});
  await agent.waitForLine((line) => line.includes("session/request_permission"), 15_000);
  agent.proc.stdin.end();
  expect(await agent.proc.exited).toBe(0);
  // Answered by the service, not by the relay's "the service stopped" once its patience ran out.
  expect(agent.stdoutLines.some((line) => line.includes('"stopReason":"cancelled"'))).toBe(true);
  expect(agent.stdoutLines.some((line) => line.includes("the lembas service stopped"))).toBe(false);
  const db = openDb(join(t.d.box.stateDir, "lembas.db"));
  try {
    expect(listTurns(db, sessionId)[0]).toMatchObject({ state: "done", answer: { stopReason: "cancelled" } });
    expect(getHold(db, sessionId)).toBeNull();
  } finally {
    db.close();
  }
});

/** A prompt sent as a raw line under `id` (the SDK's own requests use other ids). */
function prompt(agent: StdioAgent, id: unknown, sessionId: string, text: string): void {
  agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } }));
}

test("the service killed with requests open, one under an id the editor reused for an answered one and one under id null: each is answered with the error", async () => {
  own = await startDevice();
  await own.serve();
  const agent = await editor({}, own);
  const { sessionId } = await agent.agent.request("session/new", { cwd: own.project, mcpServers: [] });
  own.model.push(step({ text: "thinking", hold: new Promise(() => {}) }));
  prompt(agent, "reused", sessionId, "long");
  prompt(agent, "queued", sessionId, "next");
  prompt(agent, null, sessionId, "and this");
  await agent.waitForLine((line) => line.includes("agent_message_chunk"), 15_000);
  // The prompt "reused" is still open when the editor sends another request under its id, which is answered.
  agent.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "reused", method: "session/list", params: {} }));
  expect(await answersTo(agent, "reused")).toMatchObject([{ result: { sessions: expect.any(Array) } }]);
  own.service?.kill("SIGKILL");
  expect(await agent.proc.exited).toBe(1);
  const stopped = { error: { code: -32603, message: expect.stringContaining("the lembas service stopped before it answered") } };
  expect(await answersTo(agent, "reused", 2)).toMatchObject([{ result: {} }, stopped]);
  expect(await answersTo(agent, "queued")).toMatchObject([stopped]);
  expect(await answersTo(agent, null)).toMatchObject([stopped]);
  expect(agent.stderr()).toContain("3 request(s) answered with an error");
});

test("stdin closed with a prompt of id null running: it is answered cancelled before the process exits 0, as by its own engine", async () => {
  for (const env of [{}, { LEMBAS_STDIO_OWN_ENGINE: "1" }] as Record<string, string>[]) {
    const agent = await editor(env);
    const { sessionId } = await agent.agent.request("session/new", { cwd: t.project, mcpServers: [] });
    t.model.push(step({ text: "thinking", hold: new Promise(() => {}) }));
    prompt(agent, null, sessionId, "go");
    await agent.waitForLine((line) => line.includes("agent_message_chunk"), 15_000);
    agent.proc.stdin.end();
    expect(await agent.proc.exited).toBe(0);
    expect(await answersTo(agent, null)).toMatchObject([{ result: { stopReason: "cancelled" } }]);
  }
});
