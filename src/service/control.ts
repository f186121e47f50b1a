/**
 * The service's control socket (`service.sock` in the state dir): a Hono app on a unix socket in
 * a mode-0700 directory. It answers `GET /status` and `POST /v1/delete` (deletes.ts), and
 * upgrades `GET /v1/ipc` to the WebSocket terminals speak JSON-RPC over (ipc.ts).
 */
import { chmodSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { Hono } from "hono";
import { z } from "zod";
import { UserError, errorMessage } from "../errors.ts";
import type { ServerWebSocket, WebSocketHandler } from "bun";
import { EDITOR_PATH } from "./editor-protocol.ts";
import type { EditorData, EditorSockets } from "./editors.ts";
import { type DeleteAnswer, DeleteRequest, IPC_PATH, MAX_SOCKET_PATH } from "../app/ipc-protocol.ts";
import { IpcServer } from "./ipc.ts";
import { readServiceStatus, ServiceStatus } from "../app/service-status.ts";
import { VERSION } from "../version.ts";

/** Gives the service's status when asked (the link layer knows the links). */
export type StatusProvider = () => z.input<typeof ServiceStatus> | Promise<z.input<typeof ServiceStatus>>;

/** A stop function: closes the server and removes its socket file. */
export type StopControlServer = () => Promise<void>;

/** Deletes a session wherever it is held (deletes.ts), for `POST /v1/delete`. */
export type DeleteProvider = (sessionId: string) => Promise<DeleteAnswer>;

/** The control socket's HTTP app. */
export function controlApp(provider: StatusProvider, deletes?: DeleteProvider): Hono {
  return new Hono()
    .get("/status", async (c) => c.json(ServiceStatus.parse(await provider())))
    .post("/v1/delete", async (c) => {
      const body = DeleteRequest.safeParse(await c.req.json().catch(() => null));
      if (!body.success) return c.json({ error: "say { sessionId } as JSON" }, 400);
      if (!deletes) return c.json({ error: "this service does not delete sessions" }, 404);
      return c.json(await deletes(body.data.sessionId));
    })
    .notFound((c) => c.json({ error: `no such control endpoint: ${c.req.method} ${c.req.path}` }, 404))
    .onError((error, c) => c.json({ error: errorMessage(error) }, 500));
}

/**
 * Serves the control app on `socketPath`. Its directory is made (or made again) mode 0700 and the
 * socket mode 0600. A socket file nobody answers on (left by a service that died) is replaced; one
 * a running service answers on is a UserError (exit 2). `GET /v1/ipc` is `ipc`'s WebSocket, and
 * `GET /v1/acp` the editors' (when `editors` is given).
 */
export async function startControlServer(
  socketPath: string,
  provider: StatusProvider,
  ipc = new IpcServer({ pid: process.pid, version: VERSION }),
  { editors, deletes }: { editors?: EditorSockets; deletes?: DeleteProvider } = {},
): Promise<StopControlServer> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new UserError(`the control socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: set LEMBAS_STATE_DIR to a shorter directory`, 2);
  }
  const dir = dirname(socketPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  await clearStaleSocket(socketPath);
  const app = controlApp(provider, deletes);
  const server = Bun.serve({
    unix: socketPath,
    fetch(request, srv) {
      const path = new URL(request.url).pathname;
      if (path === IPC_PATH) {
        return ipc.upgrade(request, srv as never) ? undefined : Response.json({ error: `${IPC_PATH} is a WebSocket: connect with an upgrade` }, { status: 426 });
      }
      if (path === EDITOR_PATH && editors) return editors.upgrade(request, srv as never);
      return app.fetch(request);
    },
    websocket: bothSockets(ipc.websocket as unknown as WebSocketHandler<SocketData>, editors?.websocket ?? null),
  });
  chmodSync(socketPath, 0o600);
  const inode = lstatSync(socketPath).ino;
  return async () => {
    await server.stop(true);
    // Bun removes the file itself; this is for the case it did not, and never another server's socket.
    if (lstatSync(socketPath, { throwIfNoEntry: false })?.ino === inode) rmSync(socketPath, { force: true });
  };
}

type SocketData = Partial<EditorData> & { peer?: unknown };

/** One socket handler for Bun.serve: an editor's socket (its data has `editor`) goes to the editors', any other to the IPC's. */
function bothSockets(ipc: WebSocketHandler<SocketData>, editors: WebSocketHandler<EditorData> | null): WebSocketHandler<SocketData> {
  const of = (ws: ServerWebSocket<SocketData>) => editors && "editor" in ws.data ? (editors as unknown as WebSocketHandler<SocketData>) : ipc;
  return {
    maxPayloadLength: ipc.maxPayloadLength,
    idleTimeout: ipc.idleTimeout,
    sendPings: ipc.sendPings,
    open: (ws) => of(ws).open?.(ws),
    message: (ws, data) => of(ws).message?.(ws, data),
    drain: (ws) => of(ws).drain?.(ws),
    close: (ws, code, reason) => of(ws).close?.(ws, code, reason),
  };
}

async function clearStaleSocket(socketPath: string): Promise<void> {
  const info = lstatSync(socketPath, { throwIfNoEntry: false });
  if (!info) return;
  if (!info.isSocket()) throw new UserError(`${socketPath} is in the way of the control socket: it is not a socket, so move it aside`, 2);
  const reading = await readServiceStatus(socketPath);
  if (reading.running) throw alreadyRunning(reading.status.pid);
  if (!reading.stale) throw new UserError(`${reading.reason}: stop that process first`);
  rmSync(socketPath, { force: true });
}

/** The one line a second `lembas serve` ends with (exit 2). */
export function alreadyRunning(pid: number | null): UserError {
  const who = pid === null ? "another lembas service is starting" : `a lembas service is already running (pid ${pid})`;
  return new UserError(`${who}: stop it first, or use lembas service status`, 2);
}
