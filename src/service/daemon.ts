import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CardDesk } from "../acp/cards.ts";
import { LinkOwners } from "../acp/link-owners.ts";
import type { Context } from "../app/context.ts";
import { createEngine } from "../app/start-engine.ts";
import { configNewsLine } from "../app/config-news.ts";
import { errorMessage } from "../errors.ts";
import { LinkDialer } from "../link/dialer.ts";
import { createFileIndexes } from "../project/files.ts";
import { storeFailure } from "../store/db.ts";
import { KILL_GRACE_MS } from "../tools/process-group.ts";
import { stopOrphanedRuns } from "../tools/run-mark.ts";
import { pruneTurns } from "../store/turns.ts";
import { VERSION } from "../version.ts";
import { startControlServer } from "./control.ts";
import { EditorSockets } from "./editors.ts";
import { ServiceDeletes } from "./deletes.ts";
import { IpcServer } from "./ipc.ts";
import { Shares } from "./shares.ts";
import { handOver } from "./handover.ts";
import { ServiceLocator } from "./locator.ts";
import { rotatingLog } from "../app/logfile.ts";
import { linkRelay } from "./router.ts";
import { stopLoginTurns } from "./logout-turns.ts";
import { idleSweep } from "./idle-sweep.ts";
import { serviceSessionEnv } from "./session-env.ts";
import { holdService } from "./singleton.ts";
import { LOG_NAME } from "./units.ts";
import { waitMs } from "../timing.ts";
import { startedUp } from "../jit-policy.ts";

/** How often the service looks for logins made or removed since it started (a look costs microseconds: a logout stops its turns within a second). */
const LOGINS_EVERY_MS = 1000;

/**
 * The service's log: a line an event, to <state>/logs/lembas.log, and to stderr when a person
 * watches it (a terminal) or asks (LEMBAS_LOG_STDERR=1) — under systemd or launchd stderr is
 * captured too, and would store every line twice. Never a token. The file is rotated past
 * 8 MiB, three old ones kept (LEMBAS_LOG_MAX_BYTES changes the size, for tests).
 */
export function serviceLogger(logsDir: string, toStderr = process.stderr.isTTY === true || process.env.LEMBAS_LOG_STDERR === "1"): (line: string) => void {
  let append: ((text: string) => void) | null = null;
  try {
    mkdirSync(logsDir, { recursive: true, mode: 0o700 });
    append = rotatingLog(join(logsDir, LOG_NAME), logLimits(process.env.LEMBAS_LOG_MAX_BYTES));
  } catch {
    // a state directory that cannot be written: the service says so (on stderr) and stops
  }
  // Without a file to write, stderr is the log, whoever watches it.
  const echo = toStderr || append === null;
  return (line) => {
    const text = `${new Date().toISOString()} ${line}\n`;
    if (echo) process.stderr.write(text);
    try {
      append?.(text);
    } catch {
      // the log on stderr still has it
    }
  };
}

/** LEMBAS_LOG_MAX_BYTES=N rotates the log past N bytes instead of the default. */
function logLimits(value: string | undefined): { maxBytes?: number } {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? { maxBytes: n } : {};
}

/**
 * `lembas serve`: one link per login, the control socket, until SIGTERM, SIGINT or SIGHUP — then
 * running turns are cancelled cleanly, the links closed, and it exits 0. What a service (or any
 * lembas) killed before left running is stopped first.
 */
export async function runService(ctx: Context): Promise<void> {
  const log = serviceLogger(ctx.paths.logsDir);
  // A bug in one handler must not take every link and session down with it: say it, go on.
  process.on("unhandledRejection", (reason) => log(`unexpected error (the service goes on): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  process.on("uncaughtException", (error) => log(`unexpected error (the service goes on): ${error.stack ?? error.message}`));
  const config = ctx.config();
  // config.yaml edited while the service runs is read at the next step or request (config/live.ts): said here.
  ctx.onConfigNews((news) => log(configNewsLine(news, ctx.paths.configFile) ?? `${ctx.paths.configFile} changed: read again, in force from the next step or request`));
  const db = openStore(ctx, log);
  // Once the store says the state dir is usable, before any engine or link (a second service must
  // not link to the instances too): one service per state dir.
  const release = await holdService(ctx.paths.stateDir, ctx.paths.socketFile);
  stopLeftovers(log);
  const said = (error: unknown) => storeFailure(error, ctx.paths.dbFile)?.message ?? errorMessage(error);
  // The person's login-shell environment (kept, or read now), for the commands the sessions run.
  const commandEnv = await serviceSessionEnv(ctx.paths, config, log);
  const { engine, logins: loginsNow } = createEngine(ctx, "service", (root, path) => files.recordUse(root, path), commandEnv);
  // The picker leaves out what the engine protects (config.yaml's `protected:` and the config and state dirs too).
  const files = createFileIndexes(db, { protectedPaths: engine.protectedPaths });
  const warmed = engine.warm();
  const owners = new LinkOwners();
  const desks = new Map<string, CardDesk>();
  const dialers = new Map<string, LinkDialer>();
  const startedAt = new Date().toISOString();
  // The sessions terminals share: announced on the links, their requests routed to the terminal.
  const shares = new Shares({
    db,
    get remote() {
      return config.remote;
    },
    configDir: ctx.paths.configDir,
    log,
  });
  // Editors' serve --stdio hand their sessions to this engine (GET /v1/acp).
  // Their sessions are refused one another's and the links' (asked of the locator, made just below, once an editor asks).
  const editors = new EditorSockets({ engine, config, paths: ctx.paths, db, locator: { where: (id) => locator.where(id) } }, { pid: process.pid, version: VERSION }, log);
  // Where each session is held (a link, an editor, a terminal, another process, nobody): every handler asks it.
  const locator = new ServiceLocator({ engine, db, owners, editors, shares });

  // The links follow the store's logins as the engine's models do (the same watch: store/logins-watch.ts).
  const syncLogins = () => {
    const logins = loginsNow.current();
    for (const login of logins) {
      const known = dialers.get(login.name);
      // A new token (logged in again) restarts the link, even one that stopped on the old token.
      if (known && known.url === login.url && known.token === login.token) continue;
      void known?.stop("relogin");
      const dialer = new LinkDialer(login, {
        engine,
        config,
        paths: ctx.paths,
        db,
        owners,
        desks,
        files,
        relay: linkRelay(shares, locator),
        locator,
        log,
        ...keepaliveFrom(process.env.LEMBAS_LINK_KEEPALIVE),
        ...maxMessageFrom(process.env.LEMBAS_LINK_MAX_MESSAGE_BYTES),
      });
      dialers.set(login.name, dialer);
      dialer.start();
    }
    for (const [name, dialer] of dialers) {
      if (logins.some((l) => l.name === name)) continue;
      stopLoginTurns(engine, name, dialer.held());
      void dialer.stop("logout");
      dialers.delete(name);
    }
    if (logins.length === 0 && dialers.size === 0) return false;
    return true;
  };
  if (!syncLogins()) log("no logins yet: lembas login URL links this device to an instance");
  const loginTimer = setInterval(syncLogins, waitMs("LOGINS_EVERY_MS", LOGINS_EVERY_MS));
  // Turn ids of sessions untouched for 30 days are forgotten (the spec's pruning of the turns file).
  const prune = () => {
    try {
      pruneTurns(db);
    } catch (error) {
      log(`could not prune old turn ids: ${said(error)}`);
    }
  };
  prune();
  const pruneTimer = setInterval(prune, 6 * 60 * 60 * 1000);
  // Sessions nobody holds, and a link's idle ones, are let go of (service/idle-sweep.ts).
  const stopSweep = idleSweep({ engine, owners, locator, desks }, (error) => log(`could not let go of idle sessions: ${said(error)}`));

  // Deletes asked of the service (a terminal, a shell), done wherever the session is held, and told on every link now.
  const deletes = new ServiceDeletes({ engine, db, owners, desks, shares, locator, log, sendKept: () => dialers.forEach((d) => d.sendKept()) });
  const ipc = new IpcServer({ pid: process.pid, version: VERSION }, log, {
    shares,
    handOver: (sessionId, waiting) => handOver({ engine, owners, desks, moves: shares.moves, locator, log }, sessionId, waiting),
    deletes,
  });
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
      terminals: ipc.terminals(),
    }), ipc, { editors, deletes: (sessionId) => deletes.delete(sessionId) });
  } catch (error) {
    log(`the control socket could not start: ${errorMessage(error)}`);
    clearInterval(loginTimer);
    await Promise.all([...dialers.values()].map((d) => d.stop()));
    release();
    throw error;
  }
  log(`lembas ${VERSION} serving (pid ${process.pid})`);
  // Up once serving and warmed (the model list fetched): what a request runs before then is only interpreted longer.
  void warmed.then(startedUp);

  // A terminal it was started from that closes hangs up (SIGHUP): it stops as cleanly as on SIGTERM.
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, () => resolve());
  });
  log("stopping: cancelling running turns and closing the links");
  clearInterval(loginTimer);
  clearInterval(pruneTimer);
  stopSweep();
  // Every step runs whatever the one before met (a full disk, say): the links close and it exits.
  for (const problem of await engine.stop()) log(`while stopping: ${problem}`);
  await Promise.allSettled([...dialers.values()].map((d) => d.stop()));
  ipc.closeAll();
  editors.closeAll();
  await stopControl().catch((error: unknown) => log(`while stopping: the control socket: ${errorMessage(error)}`));
  try {
    db.close();
  } catch (error) {
    log(`while stopping: ${said(error)}`);
  }
  release();
  log("stopped");
}

/**
 * Stops what a lembas killed before it could stop its commands (a service killed with -9, its
 * watchdog too) left running: its background jobs would otherwise run on, owned by nobody.
 */
function stopLeftovers(log: (line: string) => void): void {
  const { owners, stopped } = stopOrphanedRuns(KILL_GRACE_MS);
  if (stopped === 0) return;
  log(`stopped ${stopped} process(es) that lembas ${owners.map((pid) => `pid ${pid}`).join(", ")} started and left running when it was killed`);
}

/** The store, or the sentence saying why not, logged before it ends the service. */
function openStore(ctx: Context, log: (line: string) => void) {
  try {
    return ctx.db();
  } catch (error) {
    const failure = storeFailure(error, ctx.paths.dbFile);
    if (failure) log(`cannot start: ${failure.message}`);
    throw failure ?? error;
  }
}

/** LEMBAS_LINK_MAX_MESSAGE_BYTES=N caps a message from the instance at N bytes instead of the default (for tests). */
function maxMessageFrom(value: string | undefined): { maxMessageBytes?: number } {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? { maxMessageBytes: n } : {};
}

/** LEMBAS_LINK_KEEPALIVE=<interval ms>,<timeout ms> changes how often the link pings (default 20 s, 10 s). */
function keepaliveFrom(value: string | undefined): { keepalive?: { intervalMs: number; timeoutMs: number } } {
  const [interval, timeout] = (value ?? "").split(",").map(Number);
  if (!interval || !timeout || interval < 10 || timeout < 10) return {};
  return { keepalive: { intervalMs: interval, timeoutMs: timeout } };
}
