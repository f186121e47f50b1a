// A link's lifetime and what it leaves in the service: a logout stops its turns, a link closed
// before its initialize was acted on attaches nothing, idle sessions are let go of, and the prompts
// waiting in a session are bounded.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { connectablePath, IPC, wsUnixUrl } from "../../src/app/ipc-protocol.ts";
import { openDb } from "../../src/store/db.ts";
import { VERSION } from "../../src/version.ts";
import { type Device, LEMBAS_INIT, newSession, startDevice, TOKEN } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { RpcError } from "../support/instance.ts";
import { waitUntil } from "../support/procs.ts";
import { runLembas } from "../support/run.ts";

let d: Device | null = null;
let release = () => {};
afterEach(async () => {
  release();
  await d?.close();
  d = null;
});

/** The service looks for a logout often, so that the tests do not wait a second for it. */
const QUICK_LOGINS = { LEMBAS_TEST_LOGINS_EVERY_MS: "100" };

/** Reads the store as another process would: a session's turn, and the sessions held. */
function store<T>(device: Device, read: (db: ReturnType<typeof openDb>) => T): T {
  const db = openDb(join(device.box.stateDir, "lembas.db"));
  try {
    return read(db);
  } finally {
    db.close();
  }
}

function turnOf(device: Device, sessionId: string): { state: string; answer: string | null } | null {
  return store(device, (db) => db.query<{ state: string; answer: string | null }, [string]>("SELECT state, answer FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1").get(sessionId));
}

function heldCount(device: Device, ids: readonly string[]): number {
  return store(device, (db) => db.query<{ session_id: string }, []>("SELECT session_id FROM holds").all().filter((h) => ids.includes(h.session_id)).length);
}

/** What the service tells a terminal that says hello: the links up. */
async function ipcLinks(device: Device): Promise<unknown> {
  const ws = new WebSocket(wsUnixUrl(connectablePath(join(device.box.stateDir, "service.sock"))));
  await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
  const answer = new Promise<{ links?: unknown }>((resolve) =>
    ws.addEventListener("message", (e) => {
      const m = JSON.parse(String(e.data));
      if (m.id === 1) resolve(m.result ?? m.error);
    }),
  );
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "_lembas/ipc/hello", params: { ipc: IPC, version: VERSION, pid: process.pid } }));
  const links = (await answer).links;
  ws.close();
  return links;
}

test("a logout cancels the running turn of a session its link held: stored cancelled, and no model request leaves with the token after", async () => {
  d = await startDevice();
  const link = await d.serve({ env: QUICK_LOGINS });
  const made = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { lembas_model: "test-model" } })) as { sessionId: string };
  const hold = new Promise<void>((resolve) => (release = resolve));
  // Mid-stream when the logout comes; had it gone on, its tool would have run and a second step gone out.
  d.model.push(step({ text: ["thinking "], toolCalls: [{ name: "bash", arguments: { command: "ls", description: "list" } }], hold }), step({ text: "after the logout" }));
  void link.request("session/prompt", { sessionId: made.sessionId, prompt: [{ type: "text", text: "go" }] }, 60_000).catch(() => {});
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text", 10_000);
  const before = d.model.requests.length;
  expect((await runLembas(d.box, ["logout", "inst"])).code).toBe(0);
  await link.closed;
  await waitUntil(() => turnOf(d as Device, made.sessionId)?.state === "done", 15_000);
  release();
  const turn = turnOf(d, made.sessionId);
  expect(turn?.state).toBe("done");
  expect(JSON.parse(turn?.answer ?? "{}").stopReason).toBe("cancelled");
  await Bun.sleep(500);
  expect(d.model.requests.slice(before).filter((r) => r.authorization === `Bearer ${TOKEN}`)).toEqual([]);
}, 60_000);

test("a link closed right after the instance's initialize attaches nothing: after a logout a terminal is told no link is up", async () => {
  d = await startDevice();
  // Six closes in a row: the redial's backoff (0.5 s doubling) would reach 16–30 s by the seventh link.
  let link = await d.serve({ env: { ...QUICK_LOGINS, LEMBAS_TEST_REDIAL_BASE_MS: "20" } });
  for (let i = 0; i < 3; i++) {
    await link.close(1011, "bye");
    link = await d.instance.waitForLink(20_000);
    await link.hello;
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: LEMBAS_INIT }));
    void link.close(1011, "gone at once");
    link = await d.instance.waitForLink(20_000);
    await link.hello;
    await link.request("initialize", LEMBAS_INIT);
  }
  expect(await ipcLinks(d)).toEqual(["inst"]);
  expect((await runLembas(d.box, ["logout", "inst"])).code).toBe(0);
  await link.closed;
  await d.waitForLog("logged out");
  const device = d;
  let links: unknown = null;
  for (const end = Date.now() + 5000; Date.now() < end; await Bun.sleep(50)) if (JSON.stringify((links = await ipcLinks(device))) === "[]") break;
  expect(links).toEqual([]);
}, 120_000);

test("sessions a link made and left idle are let go of by the service, and open again from the store when named", async () => {
  d = await startDevice();
  const link = await d.serve({ env: { LEMBAS_TEST_SESSION_IDLE_MS: "300", LEMBAS_TEST_IDLE_SWEEP_MS: "100" } });
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await newSession(link, d.project));
  const device = d;
  await waitUntil(() => heldCount(device, ids) === 0, 20_000);
  expect(heldCount(d, ids)).toBe(0);
  d.model.push(step({ text: "again" }));
  const answer = (await link.request("session/prompt", { sessionId: ids[3], prompt: [{ type: "text", text: "still there?" }] }, 30_000)) as { stopReason: string };
  expect(answer.stopReason).toBe("end_turn");
}, 60_000);

test("a redial takes up only the sessions whose turn still runs, not every session the last link held", async () => {
  d = await startDevice();
  const link = await d.serve();
  const idle = [await newSession(link, d.project), await newSession(link, d.project), await newSession(link, d.project)];
  const busy = await newSession(link, d.project);
  const hold = new Promise<void>((resolve) => (release = resolve));
  d.model.push(step({ text: ["held "], hold }));
  void link.request("session/prompt", { sessionId: busy, prompt: [{ type: "text", text: "go" }] }, 60_000).catch(() => {});
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { sessionId: string }).sessionId === busy, 10_000);
  await link.close(1011, "dropped");
  const next = await d.instance.waitForLink(20_000);
  await next.hello;
  await next.request("initialize", LEMBAS_INIT);
  const commands = (id: string) => (n: { method: string; params?: unknown }) =>
    n.method === "session/update" && (n.params as { sessionId: string; update: { sessionUpdate: string } }).sessionId === id && (n.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "available_commands_update";
  await next.waitForNotification(commands(busy), 10_000);
  await Bun.sleep(300);
  expect(idle.filter((id) => next.notifications.some(commands(id)))).toEqual([]);
}, 60_000);

test("at most 8 prompts wait in a session: the next is refused with a sentence, and every one accepted runs", async () => {
  d = await startDevice();
  const link = await d.serve();
  const sessionId = await newSession(link, d.project);
  const hold = new Promise<void>((resolve) => (release = resolve));
  d.model.push(step({ text: ["held "], hold }));
  for (let i = 0; i < 8; i++) d.model.push(step({ text: `answer ${i}` }));
  const prompt = (text: string) => link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 60_000) as Promise<{ stopReason: string }>;
  const first = prompt("first");
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text", 10_000);
  const waiting = Array.from({ length: 8 }, (_, i) => prompt(`waiting ${i}`));
  const status = () => link.request("_lembas/session/status", { sessionId }) as Promise<{ queued: string[] }>;
  for (const end = Date.now() + 10_000; Date.now() < end && (await status()).queued.length < 8; ) await Bun.sleep(50);
  const refused = await prompt("one too many").then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(RpcError);
  expect(refused).toMatchObject({ code: -32602, message: "Invalid params: 8 prompts are already waiting in this session: wait for them or cancel" });
  release();
  expect((await Promise.all([first, ...waiting])).map((a) => a.stopReason)).toEqual(Array(9).fill("end_turn"));
}, 90_000);

test("at most 64 MB of prompts wait in a session: the one past it is refused with a sentence", async () => {
  d = await startDevice();
  const link = await d.serve();
  const sessionId = await newSession(link, d.project);
  const hold = new Promise<void>((resolve) => (release = resolve));
  d.model.push(step({ text: ["held "], hold }), step({ text: "one" }), step({ text: "two" }), step({ text: "three" }), step({ text: "four" }));
  const prompt = (...texts: string[]) => link.request("session/prompt", { sessionId, prompt: texts.map((text) => ({ type: "text", text })) }, 60_000) as Promise<{ stopReason: string }>;
  const first = prompt("first");
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text", 10_000);
  // 14 MB a prompt (two blocks of 7: under a block's 10 MiB, and the turn's echo under the instance's 16 MB a message): four wait, a fifth would be 70 MB.
  const block = "a".repeat(7 * 1024 * 1024);
  const waiting = Array.from({ length: 4 }, () => prompt(block, block));
  const status = () => link.request("_lembas/session/status", { sessionId }) as Promise<{ queued: string[] }>;
  for (const end = Date.now() + 20_000; Date.now() < end && (await status()).queued.length < 4; ) await Bun.sleep(50);
  const refused = await prompt(block, block).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toMatchObject({ code: -32602, message: "Invalid params: 64 MB of prompts are already waiting in this session: wait for them or cancel" });
  release();
  expect((await Promise.all([first, ...waiting])).map((a) => a.stopReason)).toEqual(Array(5).fill("end_turn"));
}, 90_000);
