/**
 * The service's end of the IPC, against the real `lembas serve`: the hello, the registry of
 * terminals in GET /status, a terminal of another version, two services at once, kill -9.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { readServiceStatus } from "../../src/app/service-status.ts";
import { connectablePath, IPC, IPC_MISMATCH, wsUnixUrl } from "../../src/app/ipc-protocol.ts";
import { VERSION } from "../../src/version.ts";
import { LEMBAS, runLembas, type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let socket: string;
const procs: Bun.Subprocess[] = [];
const sockets: WebSocket[] = [];

beforeEach(() => {
  box = sandbox();
  socket = join(box.stateDir, "service.sock");
});
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.close();
  for (const proc of procs.splice(0)) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
  box.cleanup();
});

function spawnServe(): Bun.Subprocess<"ignore", "pipe", "pipe"> {
  const proc = Bun.spawn([...LEMBAS, "serve"], { cwd: box.dir, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  return proc;
}

/** Waits until the service on the socket answers /status (with `pid` when given). */
async function answering(pid?: number, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const reading = await readServiceStatus(socket, 500);
    if (reading.running && (pid === undefined || reading.status.pid === pid)) return reading.status;
    if (Date.now() > until) throw new Error(`the service never answered: ${reading.running ? `pid ${reading.status.pid}` : reading.reason}`);
    await Bun.sleep(25);
  }
}

/** A bare JSON-RPC peer over the IPC WebSocket, as a terminal would be. */
async function peer() {
  const ws = new WebSocket(wsUnixUrl(socket));
  sockets.push(ws);
  const answers = new Map<number, (m: { result?: unknown; error?: { code: number; message: string } }) => void>();
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    answers.get(m.id)?.(m);
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("the IPC WebSocket did not open")), { once: true });
  });
  let id = 0;
  return {
    ws,
    request(method: string, params: unknown) {
      const n = ++id;
      return new Promise<{ result?: unknown; error?: { code: number; message: string } }>((resolve) => {
        answers.set(n, resolve);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }));
      });
    },
  };
}

test("a terminal's hello is answered with the service's version and pid, and GET /status lists the terminal until it leaves", async () => {
  const proc = spawnServe();
  const before = await answering();
  expect(before.terminals).toEqual([]);
  const t = await peer();
  const answer = await t.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 4242 });
  // No login: no link is up, so none is named.
  expect(answer.result).toEqual({ ipc: IPC, version: VERSION, pid: proc.pid, links: [] });
  const status = await answering();
  expect(status.terminals).toHaveLength(1);
  expect(status.terminals[0]).toMatchObject({ pid: 4242, version: VERSION });
  const line = await runLembas(box, ["status"]);
  expect(line.stdout).toMatch(/^terminals: 1 connected \(pid 4242 since .+\)$/m);
  t.ws.close();
  const until = Date.now() + 5000;
  while ((await answering()).terminals.length > 0) {
    if (Date.now() > until) throw new Error("the terminal stayed listed after it left");
    await Bun.sleep(25);
  }
});

test("a terminal of another version, or another ipc number, hears the sentence to restart the service, and nothing else is served to it", async () => {
  spawnServe();
  await answering();
  const old = await peer();
  const refused = await old.request("_lembas/ipc/hello", { ipc: IPC, version: "0.0.1", pid: 11 });
  const sentence = `the service runs lembas ${VERSION}: restart it (lembas service install, or stop and start lembas serve) to share this terminal's sessions`;
  expect(refused.error).toMatchObject({ code: IPC_MISMATCH, message: sentence });
  expect((await old.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 11 })).error?.message).toBe(sentence);
  expect((await old.request("_lembas/ipc/share", {})).error?.message).toBe(sentence);
  const other = await peer();
  expect((await other.request("_lembas/ipc/hello", { ipc: IPC + 1, version: VERSION, pid: 12 })).error?.message).toBe(sentence);
  expect((await answering()).terminals).toEqual([]);
});

test("a request before the hello is refused", async () => {
  spawnServe();
  await answering();
  const t = await peer();
  expect((await t.request("_lembas/ipc/share", {})).error?.message).toBe("say _lembas/ipc/hello first");
});

test("two lembas serve started at once: one serves, the other says so in one line and exits 2", async () => {
  const a = spawnServe();
  const b = spawnServe();
  const first = await Promise.race([a.exited.then(() => a), b.exited.then(() => b)]);
  const winner = first === a ? b : a;
  const code = await first.exited;
  const stderr = (await new Response(first.stderr).text()).trim();
  // Said together, so that a loser that failed otherwise shows why.
  expect({ code, stderr: stderr.split("\n")[0] }).toMatchObject({ code: 2, stderr: expect.stringContaining("a lembas service is already running") });
  const status = await answering(winner.pid);
  expect(stderr).toBe(`lembas: a lembas service is already running (pid ${status.pid}): stop it first, or use lembas service status`);
  expect(winner.exitCode).toBeNull();
});

test("a service killed with -9 leaves its socket; the next one replaces it and serves the IPC", async () => {
  const first = spawnServe();
  await answering(first.pid);
  first.kill("SIGKILL");
  await first.exited;
  expect((await readServiceStatus(socket)).running).toBe(false);
  const second = spawnServe();
  await answering(second.pid);
  const t = await peer();
  expect((await t.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: 5 })).result).toMatchObject({ pid: second.pid });
});

test("GET /v1/ipc without an upgrade is told to use one (426)", async () => {
  spawnServe();
  await answering();
  const response = await fetch("http://lembas/v1/ipc", { unix: socket });
  expect(response.status).toBe(426);
});

test("one function builds ws+unix URLs; a socket path a URL cannot carry, or too long, is reached through a private link named by its hash", () => {
  expect(wsUnixUrl("/run/user/1000/lembas/service.sock")).toBe("ws+unix:///run/user/1000/lembas/service.sock:/v1/ipc");
  expect(() => wsUnixUrl("/tmp/a b/service.sock")).toThrow("connectablePath");
  const runtime = join(box.dir, "run");
  mkdirSync(runtime, { mode: 0o700 });
  const env = { XDG_RUNTIME_DIR: runtime };
  expect(connectablePath(socket, env)).toBe(socket);
  for (const odd of [join(box.dir, "a b", "service.sock"), join(box.dir, "é", "service.sock"), join(box.dir, "a:b?c#d", "service.sock"), join(box.dir, "x".repeat(120), "service.sock")]) {
    const link = connectablePath(odd, env);
    // Named by the first 8 hex digits of the path's SHA-256, as every build names it.
    expect(link).toBe(join(runtime, `${createHash("sha256").update(odd).digest("hex").slice(0, 8)}.sock`));
    expect(readlinkSync(link)).toBe(odd);
    expect(connectablePath(odd, env)).toBe(link);
  }
  // With no runtime dir, /tmp/lembas-$UID, kept private.
  const link = connectablePath(join(box.dir, "no runtime", "service.sock"), {});
  expect(link.startsWith(`/tmp/lembas-${process.getuid?.()}/`)).toBe(true);
  expect(lstatSync(`/tmp/lembas-${process.getuid?.()}`).mode & 0o777).toBe(0o700);
  Bun.spawnSync(["rm", "-f", link]);
});
