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
import { readLines } from "../rpc/line-split.ts";
import { MAX_MESSAGE_BYTES, protocolError } from "../rpc/stream.ts";
import { END_FRAME, END_METHOD, editorQuery, WELCOME_METHOD } from "../service/editor-protocol.ts";
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
 * Pumps the editor's stdin to the service and the service's frames to stdout, until stdin ends or
 * `stop` resolves. Resolves with the exit code once what it wrote is flushed: 0 when the editor
 * went, 1 when the service did.
 *
 * Each line and frame goes on as the bytes it came as: the service parses, checks and answers
 * every message itself (a line that is not JSON, a batch, a bad envelope: the same answers the
 * process's own transport gives). The relay only reads each message's id and method, for the
 * requests still open when the service goes, and keeps the end for itself.
 */
export async function pumpToService(
  service: ServiceSocket,
  input: ReadableStream<Uint8Array>,
  write: (text: string, answer: boolean) => Promise<void> | void,
  stop: Promise<void>,
): Promise<number> {
  const { ws } = service;
  // The editor's requests the service has not answered yet, counted by id: an editor may reuse an
  // id while a request of it is open (rpc/stream.ts counts them so too), and a request of id null
  // is one the service's dispatcher answers under it.
  const open = new Map<RequestId, number>();
  let settled: (() => void) | null = null;
  let ending = false;
  let lastWrite: Promise<void> = Promise.resolve();
  const toEditor = (text: string, answer: boolean) => {
    // A closed stdout (the editor went away) must not end the process: what cannot be sent is dropped.
    try {
      lastWrite = Promise.resolve(write(`${text}\n`, answer)).catch(() => {});
    } catch {
      // EPIPE: nobody reads any more; the end of stdin follows
    }
  };
  const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve(), { once: true }));

  ws.addEventListener("message", (event) => {
    if (typeof event.data !== "string") return;
    const message = envelopeOf(event.data);
    if (message === null) return;
    let answer = false;
    if (message.method === undefined && isRequestId(message.id)) {
      answer = true;
      const left = (open.get(message.id) ?? 1) - 1;
      if (left > 0) open.set(message.id, left);
      else open.delete(message.id);
      if (open.size === 0) settled?.();
    }
    toEditor(event.data, answer);
  });

  const finished = readLines(input, MAX_MESSAGE_BYTES, (text) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const message = envelopeOf(text);
    // The end is this process's to say, not the editor's. A request of that name goes on: the
    // service takes only the end's own frame as the end, and answers it as an unknown method.
    if (message?.method === END_METHOD && message.id === undefined) return;
    if (typeof message?.method === "string" && isRequestId(message.id)) open.set(message.id, (open.get(message.id) ?? 0) + 1);
    ws.send(text);
  }, () => toEditor(JSON.stringify(protocolError(-32600, `Invalid request: the message is longer than ${MAX_MESSAGE_BYTES} bytes`)), false));

  const why = await Promise.race([finished.then(() => "editor" as const), stop.then(() => "editor" as const), closed.then(() => "service" as const)]);
  if (why === "editor") {
    ending = true;
    if (ws.readyState === WebSocket.OPEN) ws.send(END_FRAME);
    const answered = open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (settled = resolve));
    await Promise.race([answered, closed, Bun.sleep(ANSWER_TIMEOUT_MS)]);
    ws.close(1000, "the editor went");
  }
  const lost = [...open].flatMap(([id, count]) => Array<RequestId>(count).fill(id));
  for (const id of lost) {
    toEditor(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error: the lembas service stopped before it answered: start the agent again" } }), true);
  }
  await lastWrite;
  if (ending) return 0;
  console.error(`lembas: the lembas service (pid ${service.pid}) stopped mid-session${lost.length ? `: ${lost.length} request(s) answered with an error` : ""}; start the agent again`);
  return 1;
}

/** An id a request is answered under: the dispatcher answers id null too (an object or a boolean is refused). */
type RequestId = string | number | null;

function isRequestId(id: unknown): id is RequestId {
  return typeof id === "string" || typeof id === "number" || id === null;
}

/** A message's id and method, or null for a frame that is not a JSON object. */
function envelopeOf(text: string): { id?: unknown; method?: unknown } | null {
  try {
    const message = JSON.parse(text) as unknown;
    return typeof message === "object" && message !== null && !Array.isArray(message) ? (message as { id?: unknown; method?: unknown }) : null;
  } catch {
    return null;
  }
}
