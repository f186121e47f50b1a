/**
 * A session the service holds (the web opened it on a link) is asked of the service before the
 * terminal opens it (`lembas -r ID`, /sessions): `_lembas/ipc/take` over a connection of its own
 * to the control socket. The service lets its running turn finish, lets go of the session and
 * answers; the terminal then holds it as any other, and shares it (the web already has it: it
 * hears announce again). With no service there is nothing to ask: taking the hold recovers what a
 * dead holder left (store/placement.ts).
 */
import { existsSync } from "node:fs";
import { errorMessage } from "../errors.ts";
import { webSocketTransport } from "../rpc/websocket.ts";
import { connectablePath, HelloResult, IPC, IPC_MAX_PAYLOAD, mismatchSentence, wsUnixUrl } from "../app/ipc-protocol.ts";
import type { Db } from "../store/db.ts";
import { heldElsewhere } from "../store/placement.ts";
import { unfinishedTurns } from "../store/turns.ts";
import { VERSION } from "../version.ts";

/** The holder the service's engine holds sessions as (app/start-engine.ts). */
const SERVICE_HOLDER = "service";

/**
 * When the service holds a session, asks it to hand it over and waits until it did; `say` is told
 * when that waits on a turn. Returns why the service did not (a sentence), or null (taken, or the
 * service never had it).
 */
export async function takeFromService(db: Db, socketPath: string, sessionId: string, say: (line: string) => void, signal?: AbortSignal): Promise<string | null> {
  const hold = heldElsewhere(db, sessionId);
  if (hold?.holder !== SERVICE_HOLDER) return null;
  if (!existsSync(socketPath)) return `the service (pid ${hold.pid}) holds it and its control socket is not there`;
  if (unfinishedTurns(db, sessionId).some((t) => t.state === "running")) say("waiting for the web's turn to finish");
  try {
    await askTake(socketPath, sessionId, signal);
    return null;
  } catch (error) {
    return `the service (pid ${hold.pid}) did not hand it over: ${errorMessage(error)}`;
  }
}

async function askTake(socketPath: string, sessionId: string, signal?: AbortSignal): Promise<void> {
  // Loaded here, not with the terminal: only a session the service holds needs the dispatcher.
  const { acp } = await import("../rpc/agent.ts");
  const ws = new WebSocket(wsUnixUrl(connectablePath(socketPath)));
  // Quitting while it waits: the connection closes (the service still lets go once the turn ends).
  const quit = () => ws.close(1000, "the terminal quits");
  signal?.addEventListener("abort", quit, { once: true });
  const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve(), { once: true }));
  try {
    const opened = await new Promise<boolean>((resolve) => {
      ws.addEventListener("open", () => resolve(true), { once: true });
      void closed.then(() => resolve(false));
    });
    if (!opened) throw new Error("its control socket took no connection");
    const transport = webSocketTransport(ws, { maxMessageBytes: IPC_MAX_PAYLOAD });
    const connection = acp.agent({ name: "lembas-terminal" }).connect(transport.stream);
    const gone = closed.then(() => {
      throw new Error(signal?.aborted ? "the terminal quit before it did (it lets go once the web's turn ends)" : "it closed the connection before it answered");
    });
    const hello = HelloResult.safeParse(await Promise.race([connection.client.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid }), gone]));
    if (!hello.success) throw new Error("its hello could not be read");
    if (hello.data.version !== VERSION || hello.data.ipc !== IPC) throw new Error(mismatchSentence(hello.data.version));
    await Promise.race([connection.client.request("_lembas/ipc/take", { sessionId }), gone]);
  } finally {
    signal?.removeEventListener("abort", quit);
    ws.close(1000, "taken");
  }
}
