import type { Paths } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import type { CardDesk } from "../acp/cards.ts";
import type { LinkOwners } from "../acp/link-owners.ts";
import type { SessionLocator } from "../acp/whereabouts.ts";
import { linkSurface } from "../acp/link.ts";
import { serveAcp } from "../acp/server.ts";
import type { Engine } from "../engine/engine.ts";
import type { FileIndexes } from "../project/files.ts";
import { errorMessage, UserError } from "../errors.ts";
import type { Stream } from "../rpc/stream.ts";
import { TOO_BIG, webSocketTransport } from "../rpc/websocket.ts";
import type { Db } from "../store/db.ts";
import { type Login, setLoginProtocols } from "../store/logins.ts";
import { type Backoff, backoffDelay, DEFAULT_BACKOFF, RESET_AFTER_MS } from "./backoff.ts";
import { discover, protocolFor } from "./discovery.ts";
import { helloParams, linkUrl } from "./hello.ts";
import { keptDeletes } from "./kept-deletes.ts";
import { Pause } from "../pause.ts";
import { waitMs } from "../timing.ts";

export type LinkState = "connecting" | "connected" | "waiting" | "stopped";

/**
 * What a link's messages pass through on their way to the handlers (the service's: each request for
 * a session a terminal shares goes to that terminal, service/router.ts). `route` wraps one link's
 * stream, and the handlers are served on the stream it returns; `attach` is called once the
 * instance's client said initialize, and returns what lets go of the link when it drops.
 */
export type LinkRelay = {
  route(stream: Stream, login: string): { stream: Stream; attach(protocol: number): () => void };
};

export type DialerDeps = {
  engine: Engine;
  config: Config;
  paths: Paths;
  db: Db;
  owners: LinkOwners;
  desks: Map<string, CardDesk>;
  files: FileIndexes;
  /** The sessions terminals share through the service: announced on this link, their requests routed. */
  relay?: LinkRelay;
  /** Where each session is held (the service's: service/locator.ts): the link's handlers ask it. */
  locator?: SessionLocator;
  log(line: string): void;
  backoff?: Backoff;
  /** How often to ping, and how long a pong may take before the socket counts as dead. */
  keepalive?: { intervalMs: number; timeoutMs: number };
  /** The most a message from the instance may be (default: the stdio limit, MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
};

export const PROTOCOL_MISMATCH = "the instance and this CLI speak different link protocols — update one of them";
const HANDSHAKE_TIMEOUT_MS = 15_000;
const KEPT_DELETES_EVERY_MS = 3000;
/** How long stopping waits for the instance to confirm deletes just sent, so they are not sent again. */
const STOP_PROOF_MS = 1000;
const TOKEN_REJECTED = "the instance rejected the device token: log in again with lembas login";

/** Why a link is stopped: the service stops, its login was removed, or replaced by a new token. */
export type StopReason = "service" | "logout" | "relogin";
const STOP_SAID: Record<StopReason, { log: string; toInstance: string }> = {
  service: { log: "stopped (the service stopped)", toInstance: "the device service is stopping" },
  logout: { log: "logged out (lembas logout): the link is closed and not redialled", toInstance: "the device logged out" },
  relogin: { log: "logged in again: this link closes, and one with the new token takes its place", toInstance: "the device logged in again" },
};

type Outcome = { kind: "closed"; code: number; reason: string; upMs: number } | { kind: "failed"; why: string } | { kind: "fatal"; why: string };

/**
 * One login's link: dials out, says hello, serves ACP and the _lembas methods over it, and
 * redials with backoff when it drops — until it is stopped, or the instance says it never
 * will work (close 4400: protocols differ; 4401 or HTTP 401: the token is rejected).
 */
export class LinkDialer {
  state: LinkState = "connecting";
  since = Date.now();
  reason: string | null = null;
  private stopping = false;
  private stopReason: StopReason = "service";
  private socket: WebSocket | null = null;
  private readonly pause = new Pause();
  private running: Promise<void> | null = null;
  private server: ReturnType<typeof serveAcp> | null = null;
  /** The deletes told on the link that is up now, waited for (briefly) at stop. */
  private kept: ReturnType<typeof keptDeletes> | null = null;
  /** The sessions the last link held when it dropped: the next one takes them up. */
  private heldBefore: string[] = [];

  constructor(
    private login: Login,
    private readonly deps: DialerDeps,
  ) {}

  get name(): string {
    return this.login.name;
  }
  get url(): string {
    return this.login.url;
  }
  get token(): string {
    return this.login.token;
  }
  sessions(): string[] {
    return this.server?.sessions() ?? [];
  }
  /** The sessions this login's link holds, and those its last link held when it dropped (their turns may run on). */
  held(): string[] {
    return [...new Set([...this.sessions(), ...this.heldBefore])];
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Sends the deletes kept for this login now, when its link is up (else after its next initialize). */
  sendKept(): void {
    this.kept?.send();
  }

  /**
   * Closes the link and stops redialling, saying why (the service stops, the person logged out,
   * or logged in again). Running turns are the engine's to stop (a logout's: service/logout-turns.ts).
   */
  async stop(why: StopReason = "service"): Promise<void> {
    this.stopReason = why;
    this.stopping = true;
    this.pause.wake();
    await this.kept?.proven(STOP_PROOF_MS);
    this.socket?.close(1001, STOP_SAID[why].toInstance);
    await this.running;
  }

  /** A new state, logged in one line; `quiet` keeps a redial's "connecting" out of the log (its "waiting" line said it). */
  private set(state: LinkState, reason: string | null = null, opts: { quiet?: boolean; line?: string } = {}): void {
    if (this.state === state && this.reason === reason) return;
    this.state = state;
    this.reason = reason;
    this.since = Date.now();
    if (opts.quiet) return;
    this.deps.log(`link ${this.login.name}: ${opts.line ?? `${state}${reason ? ` (${reason})` : ""}`}`);
  }

  private async run(): Promise<void> {
    let attempt = 0;
    let redial = false;
    while (!this.stopping) {
      this.set("connecting", null, { quiet: redial });
      redial = true;
      const outcome = await this.dialOnce();
      if (this.stopping) break;
      if (outcome.kind === "fatal") {
        this.set("stopped", outcome.why);
        return;
      }
      if (outcome.kind === "closed" && outcome.upMs >= RESET_AFTER_MS) attempt = 0;
      const why = outcome.kind === "closed" ? `closed ${outcome.code}${outcome.reason ? ` ${outcome.reason}` : ""}` : outcome.why;
      const delay = backoffDelay(attempt++, this.deps.backoff ?? { ...DEFAULT_BACKOFF, baseMs: waitMs("REDIAL_BASE_MS", DEFAULT_BACKOFF.baseMs) });
      this.set("waiting", `${why}; redialling in ${(delay / 1000).toFixed(1)} s`);
      await this.pause.for(delay);
    }
    const said = STOP_SAID[this.stopReason];
    this.set("stopped", this.stopReason === "service" ? "the service stopped" : said.log, { line: said.log });
  }


  private async dialOnce(): Promise<Outcome> {
    let protocol: number;
    try {
      const discovered = await discover(this.login.url, AbortSignal.timeout(10_000));
      if (discovered.protocols.join() !== this.login.protocols.join()) {
        setLoginProtocols(this.deps.db, this.login.name, discovered.protocols);
        this.login = { ...this.login, protocols: discovered.protocols };
      }
      protocol = protocolFor(discovered.protocols);
    } catch (error) {
      if (error instanceof UserError && error.message.includes("speaks link protocol")) return { kind: "fatal", why: PROTOCOL_MISMATCH };
      return { kind: "failed", why: errorMessage(error) };
    }
    const ws = new WebSocket(linkUrl(this.login.url), { headers: { authorization: `Bearer ${this.login.token}` } });
    this.socket = ws;
    const opened = await new Promise<boolean>((resolve) => {
      // An instance that takes the connection but never finishes the upgrade is given up on.
      const timer = setTimeout(() => {
        ws.terminate();
        resolve(false);
      }, HANDSHAKE_TIMEOUT_MS);
      ws.addEventListener("open", () => (clearTimeout(timer), resolve(true)), { once: true });
      ws.addEventListener("close", () => (clearTimeout(timer), resolve(false)), { once: true });
    });
    if (!opened) {
      this.socket = null;
      return (await this.tokenRejected()) ? { kind: "fatal", why: TOKEN_REJECTED } : { kind: "failed", why: "the link could not be opened" };
    }
    if (this.stopping) {
      // Stopped while it dialled (stop() found no socket to close): the link is not served, or stop() would wait on it for ever.
      this.socket = null;
      ws.close(1001, "the device service is stopping");
      return { kind: "failed", why: "the device service is stopping" };
    }
    return this.serve(ws, protocol);
  }

  /** Whether a session this login's link held still runs or waits for an answer (a turn, a card): the next link takes it up. */
  private stillBusy(id: string): boolean {
    const session = this.deps.engine.get(id);
    return session !== null && (session.busy || (this.deps.desks.get(id)?.open ?? 0) > 0);
  }

  /** Bun's client does not tell why an upgrade failed: ask the instance whether it was the token. */
  private async tokenRejected(): Promise<boolean> {
    try {
      const response = await fetch(`${this.login.url}/api/v1/instance`, {
        headers: { authorization: `Bearer ${this.login.token}` },
        signal: AbortSignal.timeout(5000),
      });
      return response.status === 401 || response.status === 403;
    } catch {
      return false;
    }
  }

  private async serve(ws: WebSocket, protocol: number): Promise<Outcome> {
    const openedAt = Date.now();
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }), { once: true });
    });
    const { config, db } = this.deps;
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "_lembas/hello", params: helloParams(protocol, config) }));
    const transport = webSocketTransport(ws, {
      ...(this.deps.maxMessageBytes ? { maxMessageBytes: this.deps.maxMessageBytes } : {}),
      onTooBig: (bytes, max) =>
        this.deps.log(`link ${this.login.name}: the instance sent a message of ${bytes} bytes, more than the ${max} a message may be: not read, the link is closed (${TOO_BIG}) and redialled`),
    });
    const login = this.login.name;
    let keptTimer: ReturnType<typeof setInterval> | null = null;
    const locator = this.deps.locator;
    const routed = this.deps.relay?.route(transport.stream, login) ?? null;
    const sharing = { stop: null as (() => void) | null };
    let gone = false;
    this.server = serveAcp(routed?.stream ?? transport.stream, {
      engine: this.deps.engine,
      config,
      paths: this.deps.paths,
      db,
      transport: "link",
      protocol,
      // Read at each use: config.yaml edited while the link is up applies from the next request (config/live.ts).
      get limits() {
        return { roots: config.remote.roots, max_mode: config.remote.max_mode };
      },
      connection: login,
      get maxMode() {
        return config.remote.max_mode;
      },
      owners: this.deps.owners,
      ...(locator ? { locator } : {}),
      desks: this.deps.desks,
      link: linkSurface,
      adopt: () => this.heldBefore.splice(0).filter((id) => this.stillBusy(id)),
      bufferedAmount: () => ws.bufferedAmount,
      files: this.deps.files,
      log: (line) => this.deps.log(`link ${login}: ${line}`),
      onInitialized: (cx, client) => {
        // A link that closed before its initialize was acted on attaches nothing: its cleanup ran already.
        if (gone || !client.lembas) return;
        const kept = keptDeletes({ ws, db, login, notify: (sessionId) => cx.notify("_lembas/session/deleted", { sessionId }) });
        this.kept = kept;
        kept.send();
        // Deletes kept while this link is up (from a shell, or a delete on another instance's link)
        // go out within a few seconds, not at the next link.
        keptTimer = setInterval(kept.send, waitMs("KEPT_DELETES_EVERY_MS", KEPT_DELETES_EVERY_MS));
        // The terminals' shared sessions are announced now, and their events come on this link.
        if (routed) sharing.stop = routed.attach(client.protocol);
      },
    });
    this.set("connected");
    const stopKeepalive = this.keepalive(ws);
    const { code, reason } = await closed;
    gone = true;
    stopKeepalive();
    sharing.stop?.();
    if (keptTimer) clearInterval(keptTimer);
    this.kept?.stop();
    this.kept = null;
    // Taken up by the next link: those whose turn runs on or whose card waits (others open again when named).
    this.heldBefore = [...new Set([...this.heldBefore, ...this.server.sessions()])].filter((id) => this.stillBusy(id));
    this.server.detachAll();
    this.server = null;
    this.socket = null;
    transport.end();
    if (code === 4400) return { kind: "fatal", why: PROTOCOL_MISMATCH };
    if (code === 4401) return { kind: "fatal", why: TOKEN_REJECTED };
    return { kind: "closed", code, reason, upMs: Date.now() - openedAt };
  }

  /** Pings the instance; a pong that does not come in time means the socket is dead: close it. */
  private keepalive(ws: WebSocket): () => void {
    const { intervalMs, timeoutMs } = this.deps.keepalive ?? { intervalMs: 20_000, timeoutMs: 10_000 };
    let lastPong = Date.now();
    const onPong = () => {
      lastPong = Date.now();
    };
    ws.addEventListener("pong", onPong);
    const timer = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (Date.now() - lastPong > intervalMs + timeoutMs) {
        this.deps.log(`link ${this.login.name}: no pong for ${Math.round((Date.now() - lastPong) / 1000)} s, closing`);
        ws.terminate();
        return;
      }
      ws.ping();
    }, intervalMs);
    return () => {
      clearInterval(timer);
      ws.removeEventListener("pong", onPong);
    };
  }
}
