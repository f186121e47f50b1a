import { afterAll, afterEach, beforeAll, beforeEach } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../src/app/context.ts";
import { login } from "../../src/link/login.ts";
import { openDb } from "../../src/store/db.ts";
import { trustDir } from "../../src/store/trust.ts";
import { type Instance, type Link, startInstance } from "./instance.ts";
import { type ScriptedModel, startModel } from "./model.ts";
import { profiled, type Sandbox, sandbox } from "./run.ts";

export const TOKEN = "device-token-0123456789";

/** The LLeMbas client's initialize, protocol 2. */
export const LEMBAS_INIT = { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } };

/**
 * A device: a sandbox whose config has a model connection and remote roots (work/), a trusted
 * project inside them, logged in to a simulated instance (by `lembas login`'s own login(), in this
 * process: a spawned `lembas login` per device cost a second of each test on a busy machine; the
 * command itself is test/link/login.test.ts's); and `lembas serve` spawned against it.
 */
export type Device = {
  box: Sandbox;
  work: string;
  project: string;
  model: ScriptedModel;
  instance: Instance;
  service: Bun.Subprocess<"ignore", "pipe", "pipe"> | null;
  log(): string;
  /** The log once it holds `text` (the service's stderr reaches the test after its answers may have). */
  waitForLog(text: string, timeoutMs?: number): Promise<string>;
  /** Starts `lembas serve`, waits for its link and answers initialize as LLeMbas would. */
  serve(opts?: { init?: object | null; env?: Record<string, string> }): Promise<Link>;
  /** Kills the service: SIGTERM or SIGHUP (clean), or SIGKILL. */
  kill(signal?: "SIGTERM" | "SIGHUP" | "SIGKILL"): Promise<number>;
  close(): Promise<void>;
};

export async function startDevice(opts: { protocols?: number[] | null; protocol?: number; config?: string } = {}): Promise<Device> {
  const box = sandbox();
  const work = join(box.dir, "work");
  const project = join(work, "project");
  mkdirSync(project, { recursive: true });
  const model = await startModel();
  const instance = await startInstance({
    token: TOKEN,
    model,
    ...(opts.protocols !== undefined ? { protocols: opts.protocols } : {}),
    ...(opts.protocol !== undefined ? { protocol: opts.protocol } : {}),
  });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(
    join(box.configDir, "config.yaml"),
    opts.config ??
      `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nremote:\n  roots: [${work}]\n  max_mode: edit\n  approval_timeout: 5\n`,
  );
  const db = openDb(join(box.stateDir, "lembas.db"));
  trustDir(db, project);
  db.close();
  const ctx = createContext(box.env);
  try {
    await login({ url: instance.url, token: TOKEN, name: "inst", db: ctx.db(), config: ctx.config(), paths: ctx.paths });
  } finally {
    ctx.db().close();
  }

  let logText = "";
  const device: Device = {
    box,
    work,
    project,
    model,
    instance,
    service: null,
    log: () => logText,
    async waitForLog(text, timeoutMs = 5_000) {
      const end = Date.now() + timeoutMs;
      while (!logText.includes(text) && Date.now() < end) await Bun.sleep(20);
      return logText;
    },
    async serve(o = {}) {
      const program = profiled("service");
      const proc = Bun.spawn([...program.command, "serve"], {
        cwd: box.dir,
        env: { ...box.env, ...program.env, LEMBAS_LOG_STDERR: "1", ...o.env },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      device.service = proc;
      void (async () => {
        for await (const chunk of proc.stderr) logText += new TextDecoder().decode(chunk);
      })();
      const link = await instance.waitForLink(10_000);
      await link.hello;
      if (o.init !== null) await link.request("initialize", o.init ?? LEMBAS_INIT);
      return link;
    },
    async kill(signal = "SIGTERM") {
      const proc = device.service;
      if (!proc) return 0;
      proc.kill(signal);
      const code = await proc.exited;
      device.service = null;
      return code;
    },
    async close() {
      if (device.service) {
        device.service.kill("SIGKILL");
        await device.service.exited;
      }
      await instance.close();
      await model.close();
      box.cleanup();
    },
  };
  return device;
}

/** The _lembas/event notifications of a session on a link, from `from` on. */
export function lembasEvents(link: Link, sessionId: string, from = 0): { type: string; [key: string]: unknown }[] {
  return link.notifications
    .slice(from)
    .filter((n) => n.method === "_lembas/event")
    .map((n) => n.params as { sessionId: string; event: { type: string } })
    .filter((p) => p.sessionId === sessionId)
    .map((p) => p.event as { type: string });
}

/** A session made over the link in `cwd` (session/new), its id. */
export async function newSession(link: Link, cwd: string): Promise<string> {
  return ((await link.request("session/new", { cwd, mcpServers: [] })) as { sessionId: string }).sessionId;
}

/** A device serving one link, with a session made on it in the device's project. */
export async function linkedSession(): Promise<{ d: Device; link: Link; sessionId: string }> {
  const d = await startDevice();
  const link = await d.serve();
  return { d, link, sessionId: await newSession(link, d.project) };
}

/**
 * What a test of a file that shares one service has: the device as the test sees it (`d.model` and
 * `d.project` are the test's own; its service is the file's, not to be killed or closed), the
 * link, and the test's scripted model and trusted project (work/project-N).
 */
export type ServiceTest = { d: Device; link: Link; model: ScriptedModel; project: string };

/**
 * One device and started service for the whole file (beforeAll/afterAll), for tests that need no
 * service of their own: each test gets a scripted model of its own (the connection's base_url is a
 * front port that hands every request to the running test's model) and a new project inside
 * remote.roots, trusted, handed to `bind` before it runs. A test keeps to its project and the
 * sessions it makes; what it waits for on the link it picks by session (or cwd), from the
 * notifications' length when it began, as the link carries the earlier tests' too.
 */
export function sharedServiceEach(bind: (t: ServiceTest) => void): void {
  let device: Device;
  let link: Link;
  let front: Bun.Server<undefined>;
  let model: ScriptedModel | null = null;
  let projects = 0;
  beforeAll(async () => {
    device = await startDevice();
    // Until the first test's model is there (the service asks for the model list at start), the device's own answers.
    front = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (req) => (model ?? device.model).handle(req) });
    writeFileSync(
      join(device.box.configDir, "config.yaml"),
      `model: test/test-model\nconnections:\n  test:\n    base_url: http://127.0.0.1:${front.port}/v1\nremote:\n  roots: [${device.work}]\n  max_mode: edit\n  approval_timeout: 5\n`,
    );
    link = await device.serve();
  });
  afterAll(async () => {
    await device.close();
    await front.stop(true);
  });
  beforeEach(async () => {
    model = await startModel();
    const project = join(device.work, `project-${++projects}`);
    mkdirSync(project);
    const db = openDb(join(device.box.stateDir, "lembas.db"));
    trustDir(db, project);
    db.close();
    bind({ d: { ...device, model, project }, link, model, project });
  });
  afterEach(async () => {
    await model?.close();
  });
}
