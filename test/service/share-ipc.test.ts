/**
 * What a terminal's IPC peer may make the service announce and route to it: a share outside
 * remote.roots, of a session not in the store or held by another terminal, bad IPC messages. The
 * real `lembas serve` linked to the simulated instance; a bare JSON-RPC peer over the IPC WebSocket
 * stands for a terminal (no tmux).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { IPC, wsUnixUrl } from "../../src/app/ipc-protocol.ts";
import { openDb } from "../../src/store/db.ts";
import { takeHold } from "../../src/store/holds.ts";
import { insertSession, newSessionId } from "../../src/store/sessions.ts";
import { VERSION } from "../../src/version.ts";
import { type Device, type ServiceTest, sharedServiceEach } from "../support/device.ts";
import type { Link } from "../support/instance.ts";

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.close();
});
/** The file's one service, with the test's own model and project (work/project-N). */
let oneService: ServiceTest;
sharedServiceEach((t) => {
  oneService = t;
});

/** The shared service's device and link, and where the test's notifications on the link begin. */
function service(): { d: Device; link: Link; from: number } {
  return { d: oneService.d, link: oneService.link, from: oneService.link.notifications.length };
}

type Answer = { result?: unknown; error?: { code: number; message: string } };

/** A bare JSON-RPC peer over the IPC WebSocket; it records the requests the service sends it. */
async function peer(socket: string) {
  const ws = new WebSocket(wsUnixUrl(socket));
  sockets.push(ws);
  const answers = new Map<number, (m: Answer) => void>();
  const requests: { id: unknown; method: string; params: unknown }[] = [];
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    if (m.method !== undefined && m.id !== undefined) {
      requests.push(m);
      // initialize is answered; everything else is left unanswered (a test says whether it came).
      if (m.method === "initialize") ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1 } }));
      return;
    }
    if (m.id !== undefined) answers.get(m.id)?.(m);
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("the IPC WebSocket did not open")), { once: true });
  });
  let id = 0;
  return {
    ws,
    requests,
    request(method: string, params: unknown): Promise<Answer> {
      const n = ++id;
      return new Promise((resolve) => {
        answers.set(n, resolve);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }));
      });
    },
  };
}

function shareOf(sessionId: string, cwd: string) {
  return { sessionId, cwd, title: "t", model: null, connection: null, mode: "edit", effort: "medium", busy: false };
}

/** A session in the store, held by this (the test's) process. */
function storedSession(d: Device, cwd: string): string {
  mkdirSync(cwd, { recursive: true });
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    const id = newSessionId();
    insertSession(db, { id, root: cwd, cwd, mode: "edit", model: null, effort: "medium", origin: "terminal" });
    takeHold(db, id, "terminal");
    return id;
  } finally {
    db.close();
  }
}

test("a share of a session outside remote.roots is refused: never announced, and a web prompt naming it is not routed to the peer", async () => {
  const { d, link, from } = service();
  const outside = storedSession(d, join(d.box.dir, "outside"));
  const t = await peer(join(d.box.stateDir, "service.sock"));
  expect((await t.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid })).result).toBeDefined();
  // The peer says the session is in the project (inside the roots); the store says otherwise.
  const shared = await t.request("_lembas/ipc/share", shareOf(outside, d.project));
  expect(shared.error?.code).toBe(-32602);
  await Bun.sleep(300);
  expect(link.notifications.slice(from).some((n) => n.method === "_lembas/session/announce")).toBe(false);
  const prompt = await link.request("session/prompt", { sessionId: outside, prompt: [{ type: "text", text: "x" }] }).catch((e: Error) => e);
  expect(prompt).toBeInstanceOf(Error);
  expect(t.requests.some((r) => r.method === "session/prompt")).toBe(false);
}, 30_000);

test("a share of a session that is not in the store is refused", async () => {
  const { d, link, from } = service();
  const t = await peer(join(d.box.stateDir, "service.sock"));
  await t.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid });
  const shared = await t.request("_lembas/ipc/share", shareOf("ses_nosuchsession0000000000", d.project));
  expect(shared.error?.code).toBe(-32602);
  await Bun.sleep(300);
  expect(link.notifications.slice(from).some((n) => n.method === "_lembas/session/announce")).toBe(false);
}, 30_000);

test("a peer cannot take over a session another terminal holds and shares: the share is refused and the web's requests stay with the holder", async () => {
  const { d, link, from } = service();
  const inside = storedSession(d, d.project);
  const socket = join(d.box.stateDir, "service.sock");
  const holder = await peer(socket);
  await holder.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid });
  expect((await holder.request("_lembas/ipc/share", shareOf(inside, d.project))).error).toBeUndefined();
  await link.waitForNotification("_lembas/session/announce", 5000, from);
  const spoof = await peer(socket);
  await spoof.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 4242 });
  expect((await spoof.request("_lembas/ipc/share", shareOf(inside, d.project))).error?.code).toBe(-32602);
  void link.request("session/prompt", { sessionId: inside, prompt: [{ type: "text", text: "x" }] }).catch(() => {});
  const until = Date.now() + 5000;
  while (!holder.requests.some((r) => r.method === "session/prompt") && Date.now() < until) await Bun.sleep(25);
  expect(holder.requests.some((r) => r.method === "session/prompt")).toBe(true);
  expect(spoof.requests.some((r) => r.method === "session/prompt")).toBe(false);
}, 30_000);

test("bad IPC messages are answered with JSON-RPC errors (or the socket closed, for a frame too large), and the service keeps serving", async () => {
  const { d, link, from } = service();
  const socket = join(d.box.stateDir, "service.sock");
  const inside = storedSession(d, d.project);
  const t = await peer(socket);
  const raw: unknown[] = [];
  t.ws.addEventListener("message", (e) => raw.push(JSON.parse(String(e.data))));
  for (const frame of ["not json", "[1,2]", "null", "42", '{"jsonrpc":"2.0","id":77,"result":1}', '{"jsonrpc":"2.0","method":7}']) t.ws.send(frame);
  expect((await t.request("_lembas/ipc/hello", { ipc: "one", version: VERSION, pid: -1 })).error?.code).toBe(-32602);
  expect((await t.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid })).result).toBeDefined();
  expect((await t.request("_lembas/ipc/share", [])).error?.code).toBe(-32602);
  expect((await t.request("_lembas/ipc/share", { sessionId: 5 })).error?.code).toBe(-32602);
  expect((await t.request("_lembas/ipc/leave", null)).error?.code).toBeDefined();
  expect((await t.request("_lembas/no/such", {})).error?.code).toBeDefined();
  expect((await t.request("_lembas/ipc/share", shareOf(inside, d.project))).error).toBeUndefined();
  await link.waitForNotification("_lembas/session/announce", 5000, from);
  for (const event of [null, "x", 5, [], { type: "model", ref: 7, connection: {} }, { type: "title", title: { a: 1 } }]) {
    t.ws.send(JSON.stringify({ jsonrpc: "2.0", method: "_lembas/event", params: { sessionId: inside, event } }));
  }
  t.ws.send(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: null }));
  // Every bad frame with something to answer was answered with an error.
  const until = Date.now() + 3000;
  while (raw.filter((m) => (m as { error?: unknown }).error && (m as { id?: unknown }).id === null).length < 4 && Date.now() < until) await Bun.sleep(25);
  expect(raw.filter((m) => (m as { error?: unknown }).error && (m as { id?: unknown }).id === null).length).toBeGreaterThanOrEqual(4);
  // A frame above the IPC's limit closes that socket, and only that one.
  const big = await peer(socket);
  const closed = new Promise<number>((resolve) => big.ws.addEventListener("close", (e) => resolve(e.code), { once: true }));
  big.ws.send(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"${"a".repeat(65 * 1024 * 1024)}"}}`);
  expect(await closed).toBeGreaterThan(0);
  // Still serving: the first peer's share stands, a new peer says hello, the links are up.
  const again = await peer(socket);
  expect((await again.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 4343 })).result).toBeDefined();
  const status = (await link.request("_lembas/session/status", { sessionId: inside })) as { exists: boolean };
  expect(status.exists).toBe(true);
  expect(d.service?.exitCode).toBeNull();
}, 60_000);
