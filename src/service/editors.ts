/**
 * Editors' `lembas serve --stdio` handed to the service: each stdio process connects to the control
 * socket's `GET /v1/acp` (editor-protocol.ts) and pumps its stdin and stdout over the WebSocket; the
 * service serves it plain ACP on its warm engine exactly as `serve --stdio` would serve it itself
 * (the same handlers, transport "stdio", limits null, permission requests asked of the editor).
 * Its sessions are held by the service's process, and their tools run in it, with its environment.
 */
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import { LEMBAS_PROTOCOL } from "../acp/agent.ts";
import type { AgentHost } from "../acp/host.ts";
import { serveAcp } from "../acp/server.ts";
import { serverWebSocketTransport } from "../rpc/server-websocket.ts";
import { END_FRAME, WELCOME_METHOD } from "./editor-protocol.ts";
import { IPC, IPC_MAX_PAYLOAD } from "../app/ipc-protocol.ts";

/** One editor's connection: its transport and the ACP served on it. */
type Editor = {
  ws: ServerWebSocket<EditorData>;
  transport: ReturnType<typeof serverWebSocketTransport>;
  server: ReturnType<typeof serveAcp>;
};

export type EditorData = { editor: Editor | null };

/** What the service lends an editor's connection: its engine, config, paths and store. */
export type EditorHostBase = Pick<AgentHost, "engine" | "config" | "paths" | "db" | "locator">;

export class EditorSockets {
  private readonly editors = new Set<Editor>();

  constructor(
    private readonly base: EditorHostBase,
    private readonly self: { pid: number; version: string },
    private readonly log: (line: string) => void = () => {},
  ) {}

  /**
   * Upgrades `GET /v1/acp` when the stdio process is of this IPC, version and config file; else the
   * answer that says why (it then serves with its own engine).
   */
  upgrade(request: Request, server: Server<EditorData>): Response | undefined {
    const query = new URL(request.url).searchParams;
    const theirs = { ipc: Number(query.get("ipc")), version: query.get("version"), config: query.get("config") };
    if (theirs.ipc !== IPC || theirs.version !== this.self.version) {
      return Response.json({ error: `the service runs lembas ${this.self.version} (ipc ${IPC}): it serves editors of the same version only` }, { status: 409 });
    }
    if (theirs.config !== this.base.paths.configFile) {
      return Response.json({ error: `the service reads ${this.base.paths.configFile}, not ${theirs.config}` }, { status: 409 });
    }
    return server.upgrade(request, { data: { editor: null } }) ? undefined : Response.json({ error: "/v1/acp is a WebSocket: connect with an upgrade" }, { status: 426 });
  }

  /** The `websocket` handlers for Bun.serve (control.ts routes this endpoint's sockets here). */
  get websocket(): WebSocketHandler<EditorData> {
    return {
      maxPayloadLength: IPC_MAX_PAYLOAD,
      open: (ws) => {
        ws.data.editor = this.accept(ws);
      },
      message: (ws, data) => {
        const editor = ws.data.editor;
        if (!editor) return;
        if (data === END_FRAME) return void this.finish(editor);
        editor.transport.receive(data);
      },
      drain: (ws) => ws.data.editor?.transport.drained(),
      close: (ws) => {
        const editor = ws.data.editor;
        if (!editor) return;
        this.editors.delete(editor);
        // Gone without saying so (killed): its turns are cancelled, as its own engine's would be.
        void this.finish(editor).finally(() => editor.transport.end());
      },
    };
  }

  /**
   * Whether an editor's connection has the session, attached or still loading it (the service does
   * not let it go while one does, and refuses it to every other front end).
   */
  has(sessionId: string): boolean {
    for (const editor of this.editors) if (editor.server.sessions().includes(sessionId)) return true;
    return false;
  }

  /** The service stops: every editor hears its socket close (its stdio process says so and exits). */
  closeAll(): void {
    for (const editor of this.editors) editor.ws.close(1001, "the lembas service stops");
  }

  private accept(ws: ServerWebSocket<EditorData>): Editor {
    const transport = serverWebSocketTransport(ws as ServerWebSocket<unknown>);
    const host: AgentHost = {
      ...this.base,
      transport: "stdio",
      protocol: LEMBAS_PROTOCOL,
      limits: null,
      connection: null,
      maxMode: "auto",
    };
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: WELCOME_METHOD, params: { ipc: IPC, version: this.self.version, pid: this.self.pid } }));
    const editor: Editor = { ws, transport, server: serveAcp(transport.stream, host) };
    this.editors.add(editor);
    this.log("an editor's serve --stdio connected");
    return editor;
  }

  /** Cancels the editor's turns (their prompts answer "cancelled") and lets go of its sessions. */
  private async finish(editor: Editor): Promise<void> {
    const ids = editor.server.sessions();
    await editor.server.close();
    for (const id of ids) await this.base.engine.release(id);
  }
}
