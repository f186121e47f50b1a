/**
 * The terminal's link to the device's service: a WebSocket to `<state>/service.sock`'s
 * `/v1/ipc`, a hello, and then the connection kept. It never blocks the screen and never throws
 * into it: with no service (or a gone one) the terminal works locally, and the link tries again
 * every 250 ms (± jitter) until one answers — a service restarted after kill -9 included.
 */
import { existsSync } from "node:fs";
import { errorMessage } from "../errors.ts";
import type { acp } from "../rpc/agent.ts";
import type { Stream } from "../rpc/stream.ts";
import { webSocketTransport } from "../rpc/websocket.ts";
import { readServiceStatus } from "../app/service-status.ts";
import { connectablePath, HelloResult, IPC, IPC_MAX_PAYLOAD, IPC_MISMATCH, mismatchSentence, wsUnixUrl } from "../app/ipc-protocol.ts";
import { VERSION } from "../version.ts";
import { Pause } from "../pause.ts";

/** What the terminal knows of the service: none there, connected to it, or one it cannot speak with. */
export type ServiceLinkState = { kind: "none" } | { kind: "connected"; pid: number; version: string } | { kind: "mismatch"; sentence: string };

export type ServiceLinkOptions = {
  socketPath: string;
  /** Told each time the state changes (never throws back into the link). */
  onChange?: (state: ServiceLinkState) => void;
  /** The pause between tries, before jitter (default 250 ms). */
  retryMs?: number;
  /** A service that answered hello's is given this long (default 5 s). */
  helloTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /**
   * What the terminal serves the service on each connection (its shared session's ACP, tui/share.ts);
   * by default nothing but the hello. `close` is called when that connection ends.
   */
  serve?(stream: Stream): { connection: acp.AgentConnection; close(): void };
  /** The service accepted the hello on this connection (each time, after every reconnect); `links`: the logins linked now. */
  onUp?(connection: acp.AgentConnection, links: string[]): void;
};

/** Between tries while the service is one of another version: it is not asked four times a second. */
const MISMATCH_RETRY_MS = 2000;

export class ServiceLink {
  private current: ServiceLinkState = { kind: "none" };
  private stopped = false;
  private socket: WebSocket | null = null;
  private readonly pause = new Pause();
  private loop: Promise<void> | null = null;
  private links: string[] = [];
  private firstTry: () => void = () => {};
  /** Settles once the first try to reach the service came to something (connected, none, another version). */
  readonly tried = new Promise<void>((resolve) => {
    this.firstTry = resolve;
  });

  constructor(private readonly opts: ServiceLinkOptions) {}

  get state(): ServiceLinkState {
    return this.current;
  }

  /** Starts linking in the background; returns at once. */
  start(): void {
    if (this.loop) return;
    this.loop = this.run().catch(() => {});
  }

  /** Closes the link and stops trying. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.socket?.close(1000, "the terminal quits");
    this.pause.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.connectOnce();
      } catch {
        this.set({ kind: "none" });
      }
      this.firstTry();
      if (this.stopped) return;
      const base = this.current.kind === "mismatch" ? MISMATCH_RETRY_MS : (this.opts.retryMs ?? 250);
      await this.pause.for(base * (0.75 + Math.random() * 0.5));
    }
  }

  /** One connection: made, said hello on, and kept until it closes. */
  private async connectOnce(): Promise<void> {
    const { socketPath } = this.opts;
    if (!existsSync(socketPath)) return this.set({ kind: "none" });
    const serve = this.opts.serve ?? (await bareAgent());
    const ws = new WebSocket(wsUnixUrl(connectablePath(socketPath, this.opts.env)));
    this.socket = ws;
    const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve(), { once: true }));
    const opened = await new Promise<boolean>((resolve) => {
      ws.addEventListener("open", () => resolve(true), { once: true });
      void closed.then(() => resolve(false));
    });
    if (this.stopped) ws.close();
    if (!opened || this.stopped) {
      this.socket = null;
      if (!this.stopped) await this.noIpc(socketPath);
      return;
    }
    const transport = webSocketTransport(ws, { maxMessageBytes: IPC_MAX_PAYLOAD });
    // The terminal is the agent side: it serves its shared session's ACP to the service over this socket.
    const served = serve(transport.stream);
    const { connection } = served;
    try {
      const answer = await this.hello(connection, closed);
      if (answer) this.set(answer);
      if (answer?.kind === "connected") this.up(connection, this.links);
    } catch (error) {
      this.set(helloRefusal(error));
      if (this.current.kind === "none") ws.close();
    }
    await closed;
    this.socket = null;
    try {
      served.close();
    } catch {
      // what was served on it is gone with it
    }
    if (this.current.kind === "connected") this.set({ kind: "none" });
  }

  private async hello(connection: acp.AgentConnection, closed: Promise<void>): Promise<ServiceLinkState | null> {
    const timeoutMs = this.opts.helloTimeoutMs ?? 5000;
    let timer: Timer | undefined;
    const gone = new Promise<null>((resolve) => {
      void closed.then(() => resolve(null));
      timer = setTimeout(() => {
        this.socket?.close();
        resolve(null);
      }, timeoutMs);
    });
    try {
      const raw = await Promise.race([connection.client.request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid }), gone]);
      if (raw === null) return null;
      const result = HelloResult.safeParse(raw);
      if (!result.success) return { kind: "none" };
      if (result.data.ipc !== IPC || result.data.version !== VERSION) return { kind: "mismatch", sentence: mismatchSentence(result.data.version) };
      this.links = result.data.links;
      return { kind: "connected", pid: result.data.pid, version: result.data.version };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The socket took no WebSocket: a service from before the IPC is one to restart; a stale socket is none. */
  private async noIpc(socketPath: string): Promise<void> {
    const reading = await readServiceStatus(socketPath, 1000);
    if (reading.running && reading.status.version !== VERSION) return this.set({ kind: "mismatch", sentence: mismatchSentence(reading.status.version) });
    this.set({ kind: "none" });
  }

  private up(connection: acp.AgentConnection, links: string[]): void {
    try {
      this.opts.onUp?.(connection, links);
    } catch {
      // the share's trouble: the link stays
    }
  }

  private set(state: ServiceLinkState): void {
    this.firstTry();
    if (JSON.stringify(state) === JSON.stringify(this.current)) return;
    this.current = state;
    try {
      this.opts.onChange?.(state);
    } catch {
      // the screen's trouble, not the link's
    }
  }

}

/**
 * An agent that serves nothing, for a link made without `serve`. The dispatcher is
 * loaded here, only when a service is there to link to, not with the terminal.
 */
async function bareAgent(): Promise<(stream: Stream) => { connection: acp.AgentConnection; close(): void }> {
  const { acp } = await import("../rpc/agent.ts");
  return (stream) => ({ connection: acp.agent({ name: "lembas-terminal" }).connect(stream), close() {} });
}

/** What a refused hello means: the service's sentence when it will not speak with this version. */
function helloRefusal(error: unknown): ServiceLinkState {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === IPC_MISMATCH) return { kind: "mismatch", sentence: errorMessage(error) };
  return { kind: "none" };
}

/** The one line `/status` says of the service. */
export function serviceLinkLine(state: ServiceLinkState): string {
  if (state.kind === "connected") return `service: connected (pid ${state.pid})`;
  if (state.kind === "mismatch") return state.sentence;
  return "service: not running";
}
