/**
 * The terminal's link to the service, with the real terminal in tmux and the real `lembas serve`:
 * it connects and says so in /status, comes back after the service is killed -9 and started again,
 * says to restart a service of another version, reaches a socket whose path a URL cannot carry,
 * and without a service works as ever.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { readServiceStatus } from "../../src/app/service-status.ts";
import { step } from "../support/engine.ts";
import { LEMBAS } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
const services: Bun.Subprocess[] = [];
const fakes: { stop(force?: boolean): unknown }[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.stop(true);
  for (const proc of services.splice(0)) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
});

/** `lembas serve` in the suite's sandbox (with `env` over it), once it answers on its socket. */
async function serve(env: Record<string, string> = {}): Promise<{ proc: Bun.Subprocess; socket: string }> {
  const all = { ...suite.box.env, ...env };
  const proc = Bun.spawn([...LEMBAS, "serve"], { cwd: suite.box.dir, env: all, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  services.push(proc);
  const socket = join(all.LEMBAS_STATE_DIR ?? suite.box.stateDir, "service.sock");
  const until = Date.now() + 10_000;
  for (;;) {
    const reading = await readServiceStatus(socket, 500);
    if (reading.running && reading.status.pid === proc.pid) return { proc, socket };
    if (Date.now() > until) throw new Error("the service never answered");
    await Bun.sleep(25);
  }
}

/** Waits until the service's GET /status lists the terminal's pid. */
async function listed(socket: string, pid: number, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const reading = await readServiceStatus(socket, 500);
    if (reading.running && reading.status.terminals.some((t) => t.pid === pid)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`the service never listed terminal ${pid}: ${JSON.stringify(reading)}`);
    await Bun.sleep(20);
  }
}

async function statusSays(screen: Screen, text: string): Promise<void> {
  await screen.type("/status", "Enter");
  await screen.waitFor(text);
}

describe.skipIf(!HAVE_TMUX)("the terminal's link to the service", () => {
  test("a terminal connects: the service's /status lists its pid, and its /status says connected", async () => {
    const { proc, socket } = await serve();
    const screen = await suite.open();
    await listed(socket, screen.pid());
    await statusSays(screen, `service: connected (pid ${proc.pid})`);
    expect(screen.text()).toMatch(/terminals: 1 connected \(pid \d+/);
  });

  test("the service killed -9 and started again: the terminal is connected again within a couple of seconds", async () => {
    const first = await serve();
    const screen = await suite.open();
    await listed(first.socket, screen.pid());
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const second = await serve();
    expect(await listed(second.socket, screen.pid(), 2500)).toBeLessThan(2500);
    await statusSays(screen, `service: connected (pid ${second.proc.pid})`);
  });

  test("a service of another version on the socket: the terminal says to restart it, once, and works locally", async () => {
    const socket = join(suite.box.stateDir, "service.sock");
    mkdirSync(suite.box.stateDir, { recursive: true, mode: 0o700 });
    let hellos = 0;
    const fake = Bun.serve({
      unix: socket,
      fetch(request, server) {
        if (new URL(request.url).pathname === "/v1/ipc" && server.upgrade(request)) return undefined;
        return Response.json({ pid: 1, version: "9.9.9", startedAt: new Date().toISOString(), links: [] });
      },
      websocket: {
        message(ws, data) {
          const m = JSON.parse(String(data));
          if (m.method !== "_lembas/ipc/hello") return;
          hellos++;
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { ipc: 1, version: "9.9.9", pid: 1 } }));
        },
      },
    });
    fakes.push(fake);
    const screen = await suite.open([], { columns: 200 });
    const sentence = "the service runs lembas 9.9.9: restart it (lembas service install, or stop and start lembas serve) to share this terminal's sessions";
    await screen.waitFor(sentence);
    suite.model.push(step({ text: "answered locally" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("answered locally");
    await statusSays(screen, "terminals: none connected");
    // Said once as a note, once by /status: the link kept its connection and said hello once.
    expect(screen.text().split(sentence).length - 1).toBe(2);
    expect(hellos).toBe(1);
  });

  test("a state dir whose path a URL cannot carry (a space): the terminal still connects, through a link in the runtime dir", async () => {
    const stateDir = join(suite.box.dir, "state dir é");
    const runtime = join(suite.box.dir, "run");
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    const env = { LEMBAS_STATE_DIR: stateDir, XDG_RUNTIME_DIR: runtime };
    const { proc, socket } = await serve(env);
    const screen = await suite.open([], { env });
    await listed(socket, screen.pid());
    await statusSays(screen, `service: connected (pid ${proc.pid})`);
    const links = readdirSync(runtime);
    expect(links).toEqual([expect.stringMatching(/^[0-9a-f]{8}\.sock$/)]);
    expect(readlinkSync(join(runtime, links[0] ?? ""))).toBe(socket);
  });

  test("no service: the terminal works as ever, and /status says the service is not running", async () => {
    suite.model.push(step({ text: "all local" }));
    const screen = await suite.open();
    await screen.type("hi", "Enter");
    await screen.waitFor("all local");
    await statusSays(screen, "service: not running");
    expect(screen.text()).not.toContain("restart it");
  });
});
