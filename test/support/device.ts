import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../src/app/context.ts";
import { login } from "../../src/link/login.ts";
import { openDb } from "../../src/store/db.ts";
import { trustDir } from "../../src/store/trust.ts";
import { type Instance, type Link, startInstance } from "./instance.ts";
import { type ScriptedModel, startModel } from "./model.ts";
import { ENTRY, profiling, type Sandbox, sandbox } from "./run.ts";

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
      const proc = Bun.spawn([process.execPath, ...profiling("service"), ENTRY, "serve"], {
        cwd: box.dir,
        env: { ...box.env, LEMBAS_LOG_STDERR: "1", ...o.env },
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
