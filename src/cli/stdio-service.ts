/**
 * `lembas serve --stdio` through the service: when one runs (its control socket in the state dir)
 * of this version and config, the stdio process starts no engine of its own but pumps the editor's
 * messages to the service's `GET /v1/acp` and the service's back to stdout, where the editor sees
 * the same plain ACP. Nothing but protocol messages reaches stdout: the service's welcome is read
 * here, and if the service goes away mid-session the editor's open requests are answered with an
 * error, a line says so on stderr, and the process exits 1 (an editor restarts its agent then;
 * sessions it knew are not in a fresh engine's hands, so going on alone would only fail later).
 */
import { existsSync } from "node:fs";
import type { AnyMessage, Stream } from "../rpc/stream.ts";
import { END_FRAME, editorQuery, WELCOME_METHOD } from "../service/editor-protocol.ts";
import { connectablePath, IPC, wsUnixUrl } from "../app/ipc-socket.ts";
import { VERSION } from "../version.ts";

/** How long a service that has a socket is given to welcome the editor before it serves alone. */
const WELCOME_TIMEOUT_MS = 1000;

/** How long the service is given to answer what is open once stdin ended. */
const ANSWER_TIMEOUT_MS = 5000;

/** The service that took the editor: its socket, and its pid from the welcome. */
export type ServiceSocket = { ws: WebSocket; pid: number };

/**
 * Connects to the service's editor endpoint. Null at once when there is no socket; null when it
 * refuses (another version or config), closes, or does not welcome within the timeout — then a
 * line on stderr says why, when a service is there to say it of.
 */
export async function dialService(socketPath: string, configFile: string): Promise<ServiceSocket | null> {
  if (!existsSync(socketPath)) return null;
  let ws: WebSocket;
  try {
    ws = new WebSocket(wsUnixUrl(connectablePath(socketPath), editorQuery(IPC, VERSION, configFile)));
  } catch (error) {
    console.error(`lembas: serving with this process's own engine: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  let theirs: string | null = null;
  let late = false;
  const pid = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      late = true;
      resolve(null);
    }, WELCOME_TIMEOUT_MS);
    const done = (value: number | null) => {
      clearTimeout(timer);
      resolve(value);
    };
    ws.addEventListener("close", () => done(null), { once: true });
    ws.addEventListener("error", () => done(null), { once: true });
    ws.addEventListener(
      "message",
      (event) => {
        const welcome = welcomeOf(event.data);
        theirs = welcome?.version ?? null;
        done(welcome && welcome.ipc === IPC && welcome.version === VERSION ? welcome.pid : null);
      },
      { once: true },
    );
  });
  if (pid !== null) return { ws, pid };
  ws.close();
  const why = late
    ? `the service on ${socketPath} did not answer within ${WELCOME_TIMEOUT_MS} ms`
    : theirs !== null
      ? restartSentence(theirs)
      : await refusal(socketPath, configFile);
  if (why) console.error(`lembas: serving with this process's own engine: ${why}`);
  return null;
}

function restartSentence(theirs: string): string {
  return `the service runs lembas ${theirs} and this is ${VERSION} (restart the service to serve editors from it)`;
}

/** The service's welcome, if the first frame is one. */
function welcomeOf(data: unknown): { ipc: unknown; version: string; pid: number } | null {
  if (typeof data !== "string") return null;
  try {
    const m = JSON.parse(data) as { method?: unknown; params?: { ipc?: unknown; version?: unknown; pid?: unknown } };
    if (m.method !== WELCOME_METHOD || typeof m.params?.version !== "string" || typeof m.params.pid !== "number") return null;
    return { ipc: m.params.ipc, version: m.params.version, pid: m.params.pid };
  } catch {
    return null;
  }
}

/**
 * Why the service did not take the editor, asked without the upgrade: its refusal's sentence, or
 * the version of a service older than the editor endpoint; null for a socket nobody answers on.
 */
async function refusal(socketPath: string, configFile: string): Promise<string | null> {
  const ask = async (path: string) => {
    const response = await fetch(`http://lembas${path}`, { unix: socketPath, signal: AbortSignal.timeout(WELCOME_TIMEOUT_MS) });
    return { status: response.status, body: (await response.json().catch(() => null)) as { error?: unknown; version?: unknown } | null };
  };
  try {
    const answer = await ask(editorQuery(IPC, VERSION, configFile));
    if (answer.status === 409 && typeof answer.body?.error === "string") return answer.body.error;
    const status = await ask("/status");
    if (typeof status.body?.version === "string" && status.body.version !== VERSION) return restartSentence(status.body.version);
    return `the service on ${socketPath} did not take the editor (HTTP ${answer.status})`;
  } catch {
    return null;
  }
}

/**
 * Pumps the editor's stdio (already framed and checked by the line transport) to the service and
 * back, until stdin ends or `stop` resolves. Resolves with the exit code: 0 when the editor went,
 * 1 when the service did.
 */
export async function pumpToService(service: ServiceSocket, stdio: { stream: Stream; finished: Promise<void> }, stop: Promise<void>): Promise<number> {
  const { ws } = service;
  const toEditor = stdio.stream.writable.getWriter();
  // The editor's requests the service has not answered yet.
  const open = new Set<string | number>();
  let settled: (() => void) | null = null;
  let ending = false;
  const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve(), { once: true }));

  ws.addEventListener("message", (event) => {
    if (typeof event.data !== "string") return;
    let message: AnyMessage;
    try {
      message = JSON.parse(event.data) as AnyMessage;
    } catch {
      return;
    }
    if (!("method" in message) && "id" in message && message.id !== null) {
      open.delete(message.id);
      if (open.size === 0) settled?.();
    }
    void toEditor.write(message).catch(() => {});
  });

  const reading = (async () => {
    const reader = stdio.stream.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || ws.readyState !== WebSocket.OPEN) return;
      // The end is this process's to say, not the editor's.
      if (!value || ("method" in value && value.method === "_lembas/ipc/editor_end")) continue;
      if ("method" in value && "id" in value && value.id !== null) open.add(value.id);
      ws.send(JSON.stringify(value));
    }
  })();

  const why = await Promise.race([stdio.finished.then(() => "editor" as const), stop.then(() => "editor" as const), closed.then(() => "service" as const)]);
  if (why === "editor") {
    ending = true;
    if (ws.readyState === WebSocket.OPEN) ws.send(END_FRAME);
    const answered = open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (settled = resolve));
    await Promise.race([answered, closed, Bun.sleep(ANSWER_TIMEOUT_MS)]);
    ws.close(1000, "the editor went");
  }
  const lost = [...open];
  for (const id of lost) {
    await toEditor
      .write({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error: the lembas service stopped before it answered: start the agent again" } })
      .catch(() => {});
  }
  void reading.catch(() => {});
  if (ending) return 0;
  console.error(`lembas: the lembas service (pid ${service.pid}) stopped mid-session${lost.length ? `: ${lost.length} request(s) answered with an error` : ""}; start the agent again`);
  return 1;
}
