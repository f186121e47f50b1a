import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type StatusProvider, startControlServer } from "../../src/service/control.ts";
import { type ServiceStatus, readServiceStatus } from "../../src/app/service-status.ts";
import { ROOT } from "../support/run.ts";

let dir: string;
let socket: string;
const stops: Array<() => Promise<void>> = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-ctl-"));
  socket = join(dir, "state", "service.sock");
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  rmSync(dir, { recursive: true, force: true });
});

const status: ServiceStatus = {
  pid: process.pid,
  version: "0.1.0",
  startedAt: "2025-06-01T10:00:00.000Z",
  links: [{ name: "work", url: "https://llembas.example", state: "connected", since: "2025-06-01T10:00:01.000Z", sessions: ["s1", "s2"] }],
  terminals: [],
};

async function start(provider: StatusProvider = () => status): Promise<() => Promise<void>> {
  const stop = await startControlServer(socket, provider);
  stops.push(stop);
  return stop;
}

test("GET /status answers the provider's status over the socket; the directory is 0700, the socket 0600", async () => {
  mkdirSync(join(dir, "state"), { mode: 0o755 });
  chmodSync(join(dir, "state"), 0o755);
  await start();
  expect(statSync(join(dir, "state")).mode & 0o777).toBe(0o700);
  expect(statSync(socket).mode & 0o777).toBe(0o600);
  expect(await readServiceStatus(socket)).toEqual({ running: true, status });
});

test("the provider is asked each time, and may be async", async () => {
  let calls = 0;
  await start(async () => ({ ...status, links: [], pid: ++calls }));
  expect(await readServiceStatus(socket)).toMatchObject({ running: true, status: { pid: 1 } });
  expect(await readServiceStatus(socket)).toMatchObject({ running: true, status: { pid: 2 } });
});

test("stopping removes the socket; then the service reads as not running", async () => {
  const stop = await start();
  await stop();
  stops.length = 0;
  expect(existsSync(socket)).toBe(false);
  expect(await readServiceStatus(socket)).toEqual({ running: false, stale: false, reason: `there is no control socket at ${socket}` });
});

test("a socket left by a killed service is stale: reported as not running, and replaced by the next server", async () => {
  const child = Bun.spawn([process.execPath, "-e", `
    const { startControlServer } = await import(${JSON.stringify(join(ROOT, "src/service/control.ts"))});
    await startControlServer(${JSON.stringify(socket)}, () => ({ pid: process.pid, version: "x", startedAt: "now", links: [] }));
    console.log("up");
  `], { stdout: "pipe", stderr: "inherit" });
  try {
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("up\n");
    expect(await readServiceStatus(socket)).toMatchObject({ running: true, status: { pid: child.pid } });
  } finally {
    child.kill("SIGKILL");
    await child.exited;
  }
  expect(existsSync(socket)).toBe(true);
  const reading = await readServiceStatus(socket);
  expect(reading).toEqual({ running: false, stale: true, reason: `nothing listens on ${socket} (left by a service that stopped)` });
  await start();
  expect(await readServiceStatus(socket)).toEqual({ running: true, status });
});

test("a second server on a socket a service answers on is refused with a sentence", async () => {
  await start();
  await expect(startControlServer(socket, () => status)).rejects.toThrow(
    `a lembas service is already running (pid ${process.pid}): stop it first, or use lembas service status`,
  );
  expect(await readServiceStatus(socket)).toMatchObject({ running: true });
});

test("a file that is not a socket, or a path too long for a socket, is refused with a sentence", async () => {
  mkdirSync(join(dir, "state"));
  writeFileSync(socket, "not a socket");
  await expect(startControlServer(socket, () => status)).rejects.toThrow("is not a socket, so move it aside");
  const long = join(dir, "x".repeat(120), "service.sock");
  await expect(startControlServer(long, () => status)).rejects.toThrow("set LEMBAS_STATE_DIR to a shorter directory");
});

test("something else answering on the socket is not a running lembas", async () => {
  mkdirSync(join(dir, "state"));
  const other = Bun.serve({ unix: socket, fetch: () => new Response("hello") });
  try {
    const reading = await readServiceStatus(socket);
    expect(reading).toMatchObject({ running: false, stale: false });
    expect(reading.running ? "" : reading.reason).toContain("answered, but not with a lembas status (HTTP 200)");
  } finally {
    await other.stop(true);
  }
});

test("an unknown path is a JSON 404", async () => {
  await start();
  const response = await fetch("http://lembas/nope", { unix: socket });
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ error: "no such control endpoint: GET /nope" });
});

test("a process that takes the connection but never answers is reported after the timeout", async () => {
  mkdirSync(join(dir, "state"));
  const hung = Bun.serve({ unix: socket, fetch: () => new Promise<Response>(() => {}) });
  try {
    expect(await readServiceStatus(socket, 100)).toEqual({ running: false, stale: false, reason: `the process on ${socket} did not answer within 100 ms` });
  } finally {
    await hung.stop(true);
  }
});
