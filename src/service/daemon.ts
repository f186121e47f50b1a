import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CardDesk } from "../acp/cards.ts";
import { Claims } from "../acp/claims.ts";
import type { Context } from "../cli/context.ts";
import { createEngine } from "../engine/create.ts";
import { errorMessage } from "../errors.ts";
import { LinkDialer } from "../link/dialer.ts";
import { createFileIndexes } from "../project/files.ts";
import { listLogins } from "../store/logins.ts";
import { VERSION } from "../version.ts";
import { startControlServer } from "./control.ts";

/** How often the service looks for logins made or removed since it started. */
const LOGINS_EVERY_MS = 5000;

/**
 * The service's log: a line an event, to <state>/logs/lembas.log, and to stderr when a person
 * watches it (a terminal) or asks (LEMBAS_LOG_STDERR=1) — under systemd or launchd stderr is
 * captured too, and would store every line twice. Never a token.
 */
export function serviceLogger(logsDir: string, toStderr = process.stderr.isTTY === true || process.env.LEMBAS_LOG_STDERR === "1"): (line: string) => void {
  mkdirSync(logsDir, { recursive: true, mode: 0o700 });
  const file = join(logsDir, "lembas.log");
  return (line) => {
    const text = `${new Date().toISOString()} ${line}\n`;
    if (toStderr) process.stderr.write(text);
    try {
      appendFileSync(file, text, { mode: 0o600 });
    } catch {
      // the log on stderr still has it
    }
  };
}

/**
 * `lembas serve`: one link per login, the control socket, until SIGTERM or SIGINT — then running
 * turns are cancelled cleanly, the links closed, and it exits 0.
 */
export async function runService(ctx: Context): Promise<void> {
  const log = serviceLogger(ctx.paths.logsDir);
  const config = ctx.config();
  const db = ctx.db();
  const files = createFileIndexes(db);
  const { engine } = createEngine(ctx, "service", (root, path) => files.recordUse(root, path));
  void engine.warm();
  const claims = new Claims();
  const desks = new Map<string, CardDesk>();
  const dialers = new Map<string, LinkDialer>();
  const startedAt = new Date().toISOString();

  const syncLogins = () => {
    const logins = listLogins(db);
    for (const login of logins) {
      const known = dialers.get(login.name);
      if (known && known.url === login.url) continue;
      void known?.stop();
      const dialer = new LinkDialer(login, { engine, config, paths: ctx.paths, db, claims, desks, files, log, ...keepaliveFrom(process.env.LEMBAS_LINK_KEEPALIVE) });
      dialers.set(login.name, dialer);
      dialer.start();
    }
    for (const [name, dialer] of dialers) {
      if (logins.some((l) => l.name === name)) continue;
      void dialer.stop();
      dialers.delete(name);
    }
    if (logins.length === 0 && dialers.size === 0) return false;
    return true;
  };
  if (!syncLogins()) log("no logins yet: lembas login URL links this device to an instance");
  const loginTimer = setInterval(syncLogins, LOGINS_EVERY_MS);

  let stopControl: (() => Promise<void>) | null = null;
  try {
    stopControl = await startControlServer(ctx.paths.socketFile, () => ({
      pid: process.pid,
      version: VERSION,
      startedAt,
      links: [...dialers.values()].map((d) => ({
        name: d.name,
        url: d.url,
        state: d.reason ? `${d.state}: ${d.reason}` : d.state,
        since: new Date(d.since).toISOString(),
        sessions: d.sessions(),
      })),
    }));
  } catch (error) {
    log(`the control socket could not start: ${errorMessage(error)}`);
    clearInterval(loginTimer);
    await Promise.all([...dialers.values()].map((d) => d.stop()));
    throw error;
  }
  log(`lembas ${VERSION} serving (pid ${process.pid})`);

  await new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  log("stopping: cancelling running turns and closing the links");
  clearInterval(loginTimer);
  await engine.stop();
  await Promise.all([...dialers.values()].map((d) => d.stop()));
  await stopControl();
  db.close();
  log("stopped");
}

/** LEMBAS_LINK_KEEPALIVE=<interval ms>,<timeout ms> changes how often the link pings (default 20 s, 10 s). */
function keepaliveFrom(value: string | undefined): { keepalive?: { intervalMs: number; timeoutMs: number } } {
  const [interval, timeout] = (value ?? "").split(",").map(Number);
  if (!interval || !timeout || interval < 10 || timeout < 10) return {};
  return { keepalive: { intervalMs: interval, timeoutMs: timeout } };
}
