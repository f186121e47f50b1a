/**
 * The service's end of the IPC: each terminal connects to the control socket's `GET /v1/ipc` as
 * a WebSocket and speaks JSON-RPC over it. The service is the ACP *client* side of that
 * connection (the terminal will serve its session's ACP to it over the same socket); the terminal
 * sends it the `_lembas/ipc/*` requests: `_lembas/ipc/hello` (then the service says initialize,
 * as an instance would, so the terminal serves it the link's protocol), `_lembas/ipc/share` and
 * `_lembas/ipc/leave` (kept in shares.ts), `_lembas/ipc/take` (handover.ts), `_lembas/ipc/deleted`
 * (deletes.ts), the shared sessions' `session/update` and `_lembas/event` notifications, relayed
 * to the links, and their cards (share-cards.ts).
 */
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { z } from "zod";
import { acp } from "../rpc/agent.ts";
import { serverWebSocketTransport } from "../rpc/server-websocket.ts";
import type { ServiceDeletes } from "./deletes.ts";
import { DeletedParams, HelloParams, type HelloResult, IPC, IPC_MAX_PAYLOAD, IPC_MISMATCH, LeaveParams, mismatchSentence, ShareParams, TakeParams } from "../app/ipc-protocol.ts";
import { CARD_METHODS, type CardMethod } from "./share-cards.ts";
import type { Forwarder, Shares } from "./shares.ts";
import type { TerminalStatus } from "../app/service-status.ts";

/** What the service says in initialize to a terminal: a LLeMbas client of link protocol 2. */
const TERMINAL_INIT = { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } };

/** One WebSocket's state: its transport, and the terminal once it said hello. */
type Peer = {
  transport: ReturnType<typeof serverWebSocketTransport>;
  connection: acp.ClientConnection;
  terminal: TerminalStatus | null;
  /** Set when its hello was refused: nothing else is served on it. */
  refused: string | null;
};

type Data = { peer: Peer | null };

/** Seconds a silent terminal is given before its socket is closed (Bun pings it meanwhile). */
const IDLE_TIMEOUT_S = 60;

export class IpcServer {
  private readonly peers = new Set<Peer>();

  constructor(
    private readonly self: { pid: number; version: string },
    private readonly log: (line: string) => void = () => {},
    private readonly parts: {
      shares?: Shares;
      /** Lets go of a session the service holds for a terminal that takes it (handover.ts). */
      handOver?: (sessionId: string, waiting: () => boolean) => Promise<void>;
      deletes?: Pick<ServiceDeletes, "told">;
    } = {},
  ) {
    // Each terminal hears which instances are linked, for its status bar's "shared · <instance>".
    parts.shares?.watchLinks((links) => {
      for (const peer of this.peers) if (peer.terminal) void peer.connection.agent.notify("_lembas/ipc/links", { links }).catch(() => {});
    });
  }

  /** Upgrades `GET /v1/ipc` to the IPC WebSocket; false when the request was no WebSocket handshake. */
  upgrade(request: Request, server: Server<Data>): boolean {
    return server.upgrade(request, { data: { peer: null } });
  }

  /** The `websocket` handlers for Bun.serve. */
  get websocket(): WebSocketHandler<Data> {
    return {
      maxPayloadLength: IPC_MAX_PAYLOAD,
      idleTimeout: IDLE_TIMEOUT_S,
      sendPings: true,
      open: (ws) => {
        ws.data.peer = this.accept(ws);
      },
      message: (ws, data) => ws.data.peer?.transport.receive(data),
      drain: (ws) => ws.data.peer?.transport.drained(),
      close: (ws) => {
        const peer = ws.data.peer;
        if (!peer) return;
        this.peers.delete(peer);
        void this.parts.shares?.drop(peer);
        peer.transport.end();
        if (peer.terminal) this.log(`terminal pid ${peer.terminal.pid} left`);
      },
    };
  }

  /** The terminals that said hello and are still connected, the longest-connected first. */
  terminals(): TerminalStatus[] {
    return [...this.peers].flatMap((p) => (p.terminal ? [p.terminal] : []));
  }

  /** Closes every terminal's socket (the service stops): each will try again, and work locally meanwhile. */
  closeAll(): void {
    for (const peer of this.peers) peer.connection.close();
  }

  private accept(ws: ServerWebSocket<Data>): Peer {
    const transport = serverWebSocketTransport(ws as ServerWebSocket<unknown>);
    const peer: Peer = { transport, connection: null as unknown as acp.ClientConnection, terminal: null, refused: null };
    const app = acp
      .client({ name: "lembas-service" })
      .onRequest("_lembas/ipc/hello", HelloParams, ({ params }) => this.hello(peer, params))
      // The hello is asked for before the params are read: a refused terminal hears why, whatever it sent.
      .onRequest("_lembas/ipc/share", z.unknown(), ({ params }) => {
        const terminal = this.said(peer);
        const refused = this.parts.shares?.share(peer, forwarder(peer), parsed(ShareParams, params), terminal.pid) ?? null;
        if (refused) throw new acp.RequestError(-32602, `Invalid params: ${refused}`);
        return {};
      })
      .onRequest("_lembas/ipc/leave", z.unknown(), ({ params }) => {
        this.said(peer);
        this.parts.shares?.leave(peer, parsed(LeaveParams, params).sessionId);
        return {};
      })
      .onRequest("_lembas/ipc/take", z.unknown(), async ({ params }) => {
        this.said(peer);
        const { sessionId } = parsed(TakeParams, params);
        await this.parts.handOver?.(sessionId, () => this.peers.has(peer));
        return {};
      })
      .onNotification("_lembas/ipc/deleted", z.unknown(), ({ params }) => {
        const said = DeletedParams.safeParse(params);
        if (peer.terminal && said.success) this.parts.deletes?.told(peer, said.data.sessionId);
      })
      // The shared sessions' session/update and _lembas/event: on to the links; a card settled at the terminal: taken down there.
      .onNotification("*", ({ method, params }) => {
        if (!peer.terminal) return;
        if (method === "_lembas/permission/settled") this.parts.shares?.cards.settled(peer, params);
        else this.parts.shares?.relay(peer, method, params);
      })
      // A shared session's cards, after the hello; before it, and after a refused one, nothing is served.
      .onRequest("*", ({ method, params }) => {
        if (peer.terminal && this.parts.shares && Object.hasOwn(CARD_METHODS, method)) return this.parts.shares.cards.open(peer, method as CardMethod, params);
        throw new acp.RequestError(IPC_MISMATCH, peer.refused ?? "say _lembas/ipc/hello first", { version: this.self.version, ipc: IPC });
      });
    peer.connection = app.connect(transport.stream);
    this.peers.add(peer);
    return peer;
  }

  /** A request only a terminal that said hello may make. */
  private said(peer: Peer): TerminalStatus {
    if (peer.terminal) return peer.terminal;
    throw new acp.RequestError(IPC_MISMATCH, peer.refused ?? "say _lembas/ipc/hello first", { version: this.self.version, ipc: IPC });
  }

  private hello(peer: Peer, params: HelloParams): HelloResult {
    if (peer.refused) throw new acp.RequestError(IPC_MISMATCH, peer.refused, { version: this.self.version, ipc: IPC });
    if (params.ipc !== IPC || params.version !== this.self.version) {
      peer.refused = mismatchSentence(this.self.version);
      this.log(`terminal pid ${params.pid} runs lembas ${params.version} (ipc ${params.ipc}): not spoken with`);
      throw new acp.RequestError(IPC_MISMATCH, peer.refused, { version: this.self.version, ipc: IPC });
    }
    peer.terminal ??= { pid: params.pid, version: params.version, since: new Date().toISOString(), ...(params.procId ? { procId: params.procId } : {}) };
    this.log(`terminal pid ${params.pid} connected`);
    // After the answer: the terminal serves its shared session's ACP to a LLeMbas client.
    setTimeout(() => void peer.connection.agent.request("initialize", TERMINAL_INIT).catch(() => {}), 0);
    return { ipc: IPC, version: this.self.version, pid: this.self.pid, links: this.parts.shares?.logins() ?? [] };
  }
}

/** How the router reaches a terminal: its IPC connection, the service the client side. */
function forwarder(peer: Peer): Forwarder {
  return {
    request: (method, params, signal) => peer.connection.agent.request(method, params, signal ? { cancellationSignal: signal } : undefined),
    notify: (method, params) => void peer.connection.agent.notify(method, params).catch(() => {}),
  };
}

/** The params as the schema reads them, or -32602 with the first problem. */
function parsed<T>(schema: z.ZodType<T>, params: unknown): T {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new acp.RequestError(-32602, `Invalid params: ${issue?.path.join(".") || "params"}: ${issue?.message ?? "not valid"}`);
}
