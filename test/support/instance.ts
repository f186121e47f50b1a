/**
 * A simulated LLeMbas instance for tests, playing the web UI's side of the link
 * (spec/acp.md): discovery, `/api/v1/instance`, `/v1/*` (forwarded to a {@link ScriptedModel})
 * and the device link's WebSocket, one JSON-RPC 2.0 message a text message.
 *
 * ```ts
 * const instance = await startInstance({ token: "tok", model });
 * // spawn lembas pointed at instance.url ... then:
 * const link = await instance.waitForLink();
 * const hello = await link.hello;
 * const init = await link.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
 * await instance.close();
 * ```
 *
 * The link never drops a message: what `ServerWebSocket.send` cannot take is queued and sent on
 * `drain` (see PERF.md). `Link.pause()` stops reading the socket (Bun's
 * `ServerWebSocket.pause()`), so the device sees real TCP backpressure.
 */
import type { ServerWebSocket } from "bun";
import { Hono } from "hono";
import { z } from "zod";
import type { ScriptedModel } from "./model.ts";
import { DEFAULT_WAIT_MS, Recorder, quiet, sleep } from "./recorder.ts";

/** A JSON-RPC request id. */
export type RpcId = string | number;

/** A notification the agent sent. */
export interface RpcNotification {
  method: string;
  params: unknown;
}

/** A request the agent sent. */
export interface RpcRequest {
  id: RpcId;
  method: string;
  params: unknown;
}

/** A JSON-RPC error; thrown by {@link Link.request}, and by an {@link RequestHandler} to answer with it. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** What a wait looks for: a method name, or a predicate. */
export type Match<T> = string | ((item: T) => boolean);

/** Answers an agent → client request: the return value is the result; an {@link RpcError} thrown is the error. */
export type RequestHandler = (params: unknown, request: RpcRequest) => unknown;

/** Any well-formed JSON-RPC 2.0 message the agent sent. */
export type RpcMessage = z.infer<typeof MessageSchema>;

export const MessageSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

/** How the link was closed. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** One attempt to open the link, accepted or not. */
export interface Dial {
  headers: Headers;
  /** 101 when upgraded, else the HTTP status answered (401 for a bad token). */
  status: number;
  time: number;
}

/** Discovery, as `/.well-known/lembas.json` serves it. */
export interface Discovery {
  protocol: number;
  /** null: the field is left out (an instance that predates it). */
  protocols: number[] | null;
}

/** One device link, seen from the instance's side. */
export interface Link {
  /** The upgrade request's headers. */
  readonly headers: Headers;
  /**
   * The params of the first `_lembas/hello`; rejects if the link closes before one, or if its
   * params are not an object.
   */
  readonly hello: Promise<Record<string, unknown>>;
  /** Resolves when the link closes, however it closes. */
  readonly closed: Promise<CloseInfo>;
  /** Every notification received, in order. */
  readonly notifications: RpcNotification[];
  /** Every request received from the agent, in order. */
  readonly requests: RpcRequest[];
  /** Every well-formed JSON-RPC message received (responses included), in order. */
  readonly messages: RpcMessage[];
  /** Frames that were not JSON-RPC 2.0 messages (should stay empty). */
  readonly invalid: string[];
  /** Whether the link is open. */
  readonly open: boolean;
  /**
   * Sends a request (params default to `{}`) and resolves with its result (default timeout 5 s).
   * Rejects with an {@link RpcError} (code, message, data) on an error answer.
   */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<unknown>;
  /** Sends a notification (params default to `{}`). Throws when the link is closed. */
  notify(method: string, params?: unknown): void;
  /**
   * Resolves with the first notification at index `from` or later (default 0: the ones already
   * received count) that has the method / passes the predicate.
   */
  waitForNotification(match: Match<RpcNotification>, timeoutMs?: number, from?: number): Promise<RpcNotification>;
  /** Like {@link waitForNotification}, for requests from the agent. */
  waitForRequest(match: Match<RpcRequest>, timeoutMs?: number, from?: number): Promise<RpcRequest>;
  /** Like {@link waitForNotification}, over every message (responses to `sendRaw` frames, say). */
  waitForMessage(match: (m: RpcMessage) => boolean, timeoutMs?: number, from?: number): Promise<RpcMessage>;
  /** Answers the agent's requests of `method` (others get -32601 method not found). */
  onRequest(method: string, handler: RequestHandler): void;
  /** Sends a frame as is (for malformed-frame tests); queued under backpressure like any other. */
  sendRaw(text: string): void;
  /** Stops reading the socket: nothing is handled until {@link resume}. */
  pause(): void;
  /** Handles what arrived while paused, then reads the socket again. */
  resume(): void;
  /** Closes the link (default 1000) and resolves when it is closed. */
  close(code?: number, reason?: string): Promise<CloseInfo>;
}

/** A running simulated instance. */
export interface Instance {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Every link that opened, in order (closed ones too). */
  readonly links: Link[];
  /** Every attempt to open a link, accepted or refused. */
  readonly dials: Dial[];
  /** Resolves with the next link, in connection order, that no earlier call returned (default 5 s). */
  waitForLink(timeoutMs?: number): Promise<Link>;
  /** Changes what discovery says (and which hello protocols the link accepts). */
  setDiscovery(discovery: Partial<Discovery>): void;
  /** Changes the accepted device token (the old one gets 401 from now on). */
  setToken(token: string): void;
  /** `GET /v1/models` answers this HTTP status from now on (null: lists the models again). */
  failModels(status: number | null): void;
  /** `GET /v1/usage` answers this body (as JSON) from now on; null: 404, an instance without it (the default). */
  setUsage(body: unknown): void;
  /**
   * How `GET /v1/usage` fails from now on: a 500, an answer held `slowMs` (default 10 s) before
   * it is sent, a body that is not JSON; null: it answers again.
   */
  failUsage(how: UsageFailure | null): void;
  /** How many `GET /v1/usage` requests came with the right device token. */
  readonly usageRequests: number;
  /**
   * `GET /v1/me/personalization` answers this body (as JSON) from now on, and a `PUT` changes the
   * fields it sends (a partial PUT keeps the others); null: 404 (the default).
   */
  setPersonalization(body: unknown): void;
  /**
   * How `/v1/me/personalization` fails from now on: a GET held `slowMs` (default 10 s) or until
   * {@link releasePersonalization}; a PUT (and the GET too with `get`) answered 403, with `detail`
   * when given; a PUT answered 422 naming `field`; a 500 for both. null: it answers again.
   */
  failPersonalization(how: PersonalizationFailure | null): void;
  /** Lets every held personalization GET answer now. */
  releasePersonalization(): void;
  /** How many personalization GETs came with the right device token, and how many are held now. */
  readonly personalizationRequests: number;
  readonly personalizationHeld: number;
  /** The body of every personalization PUT that came with the right device token, in order. */
  readonly personalizationPuts: unknown[];
  /**
   * Stops accepting and closes everything, like an instance going down. Links are closed with
   * `code` (default: Bun's 1001 going away).
   */
  stop(opts?: { code?: number; reason?: string }): Promise<void>;
  /** Listens again on the same port after {@link stop}. */
  restart(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** See {@link Instance.failPersonalization}. */
export type PersonalizationFailure =
  | { kind: "500" }
  | { kind: "slow"; slowMs?: number }
  | { kind: "403"; detail?: string; get?: boolean }
  | { kind: "422"; field: string };

/** See {@link Instance.failUsage}. */
export type UsageFailure = { kind: "500" } | { kind: "slow"; slowMs?: number } | { kind: "garbage" };

/** Options of {@link startInstance}. */
export interface InstanceOptions {
  /** The device token the instance accepts. */
  token: string;
  /** Discovery's `protocol` (default 1). */
  protocol?: number;
  /** Discovery's `protocols` (default [1, 2]; null leaves the field out). */
  protocols?: number[] | null;
  /** Serves `/v1/*` (without it, `/v1/*` is 503). */
  model?: ScriptedModel;
  /** Default "test-instance". */
  name?: string;
  /** `/api/v1/instance`'s version (default "0.0.0-test"). */
  version?: string;
  /**
   * Serves `/mcp` (every method) with this handler, once the request's device token is the
   * instance's (401 otherwise, as its other endpoints answer); without it, `/mcp` is 404.
   */
  mcp?: (request: Request) => Response | Promise<Response>;
  /** The device token's scopes, as `/api/v1/instance` lists them (`token.scopes`); without it, it lists none. */
  tokenScopes?: string[];
}

/**
 * Starts a simulated instance on 127.0.0.1 and a free port.
 *
 * A link whose `_lembas/hello` names a protocol the instance does not list (discovery's
 * `protocols`, else `[protocol]`) is closed with 4400, as the spec says an instance does.
 */
export async function startInstance(opts: InstanceOptions): Promise<Instance> {
  const instance = new SimulatedInstance(opts);
  await instance.restart();
  return instance;
}

// --- the link --------------------------------------------------------------------------------

const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

interface LinkData {
  link: LinkImpl;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

class LinkImpl implements Link {
  readonly hello: Promise<Record<string, unknown>>;
  readonly closed: Promise<CloseInfo>;
  private readonly notificationLog = new Recorder<RpcNotification>();
  private readonly requestLog = new Recorder<RpcRequest>();
  private readonly messageLog = new Recorder<RpcMessage>();
  readonly invalid: string[] = [];
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly pending = new Map<RpcId, Pending>();
  private nextId = 1;
  private ws: ServerWebSocket<LinkData> | null = null;
  private isOpen = false;
  /** Frames `ws.send` did not take yet, oldest first. */
  private readonly outbox: string[] = [];
  /** Set while Bun holds more than it will take (send returned -1 or 0), until `drain`. */
  private congested = false;
  /** Frames received while paused, oldest first. */
  private readonly inbox: string[] = [];
  private paused = false;
  private helloSeen = false;
  private settleHello!: { resolve: (params: Record<string, unknown>) => void; reject: (error: Error) => void };
  private settleClosed!: (info: CloseInfo) => void;

  constructor(
    readonly headers: Headers,
    private readonly protocolAccepted: (protocol: number) => boolean,
  ) {
    this.hello = new Promise((resolve, reject) => {
      this.settleHello = { resolve, reject };
    });
    quiet(this.hello); // a test that never looks at hello must not see a rejection
    this.closed = new Promise((resolve) => {
      this.settleClosed = resolve;
    });
  }

  get notifications(): RpcNotification[] {
    return this.notificationLog.items;
  }

  get requests(): RpcRequest[] {
    return this.requestLog.items;
  }

  get messages(): RpcMessage[] {
    return this.messageLog.items;
  }

  get open(): boolean {
    return this.isOpen;
  }

  // Called by the server.

  attach(ws: ServerWebSocket<LinkData>): void {
    this.ws = ws;
    this.isOpen = true;
  }

  received(frame: string | Buffer): void {
    const text = typeof frame === "string" ? frame : `<binary frame of ${frame.byteLength} bytes>`;
    if (typeof frame !== "string") return void this.invalid.push(text);
    if (this.paused) return void this.inbox.push(text);
    this.dispatch(text);
  }

  drained(): void {
    this.congested = false;
    this.flush();
  }

  detached(info: CloseInfo): void {
    if (!this.isOpen && this.ws === null) return;
    this.isOpen = false;
    this.ws = null;
    this.outbox.length = 0;
    const error = new Error(`link closed (${info.code}${info.reason ? ` ${info.reason}` : ""})`);
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`${pending.method}: ${error.message}`));
      this.pending.delete(id);
    }
    if (!this.helloSeen) this.settleHello.reject(new Error(`${error.message} before _lembas/hello`));
    for (const log of [this.notificationLog, this.requestLog, this.messageLog]) log.failAll(error);
    this.settleClosed(info);
  }

  // The test's side.

  request(method: string, params?: unknown, timeoutMs = DEFAULT_WAIT_MS): Promise<unknown> {
    if (!this.isOpen) return quiet(Promise.reject(new Error(`${method}: the link is closed`)));
    const id = this.nextId++;
    return quiet(
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        this.pending.set(id, { method, resolve, reject, timer });
        this.send({ jsonrpc: "2.0", id, method, params: params ?? {} });
      }),
    );
  }

  notify(method: string, params?: unknown): void {
    if (!this.isOpen) throw new Error(`${method}: the link is closed`);
    this.send({ jsonrpc: "2.0", method, params: params ?? {} });
  }

  waitForNotification(match: Match<RpcNotification>, timeoutMs?: number, from?: number): Promise<RpcNotification> {
    return waitForMethod(this.notificationLog, "notification", match, { timeoutMs, from });
  }

  waitForRequest(match: Match<RpcRequest>, timeoutMs?: number, from?: number): Promise<RpcRequest> {
    return waitForMethod(this.requestLog, "request", match, { timeoutMs, from });
  }

  waitForMessage(match: (m: RpcMessage) => boolean, timeoutMs?: number, from?: number): Promise<RpcMessage> {
    const context = (): string => `${this.messages.length} received`;
    return this.messageLog.waitFor(match, { timeoutMs, from, what: "a matching message", context });
  }

  onRequest(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  sendRaw(text: string): void {
    if (!this.isOpen) throw new Error("sendRaw: the link is closed");
    this.enqueue(text);
  }

  pause(): void {
    this.paused = true;
    this.ws?.pause();
  }

  resume(): void {
    this.paused = false;
    while (!this.paused && this.inbox.length > 0) {
      const text = this.inbox.shift();
      if (text !== undefined) this.dispatch(text);
    }
    if (!this.paused) this.ws?.resume();
  }

  close(code = 1000, reason = ""): Promise<CloseInfo> {
    this.ws?.close(code, reason);
    return this.closed;
  }

  // Sending, without ever dropping.

  private send(message: Record<string, unknown>): void {
    this.enqueue(JSON.stringify(message));
  }

  private enqueue(text: string): void {
    this.outbox.push(text);
    if (!this.congested) this.flush();
  }

  /** Sends queued frames until Bun signals backpressure; the rest wait for `drain`. */
  private flush(): void {
    const ws = this.ws;
    if (!ws) return;
    ws.cork(() => {
      while (this.outbox.length > 0 && !this.congested) {
        const text = this.outbox[0] ?? "";
        const status = ws.send(text);
        if (status !== 0) this.outbox.shift(); // 0: dropped, so it stays queued
        if (status <= 0) this.congested = true; // -1: taken, but over the limit: wait for drain
      }
    });
  }

  // Receiving.

  private dispatch(text: string): void {
    const message = parseMessage(text);
    if (!message) return void this.invalid.push(text);
    this.messageLog.push(message);
    const { id, method } = message;
    if (method !== undefined && id !== undefined && id !== null) return this.answer({ id, method, params: message.params });
    if (method !== undefined && id === undefined) return this.notified({ method, params: message.params });
    if (id !== undefined && id !== null && ("result" in message || message.error)) return this.settle(id, message);
    if (!(id === null && message.error)) this.invalid.push(text); // id null + error: answers a frame the agent could not read
  }

  private notified(notification: RpcNotification): void {
    this.notificationLog.push(notification);
    if (notification.method !== "_lembas/hello" || this.helloSeen) return;
    this.helloSeen = true;
    const params = z.record(z.string(), z.unknown()).safeParse(notification.params);
    if (params.success) this.settleHello.resolve(params.data);
    else this.settleHello.reject(new Error("_lembas/hello: params are not an object"));
    const protocol = z.object({ protocol: z.number() }).safeParse(notification.params);
    if (protocol.success && !this.protocolAccepted(protocol.data.protocol)) {
      this.ws?.close(4400, `link protocol ${protocol.data.protocol} is not spoken here`);
    }
  }

  private settle(id: RpcId, message: RpcMessage): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const { error } = message;
    if (error) pending.reject(new RpcError(error.code, error.message, error.data));
    else pending.resolve(message.result);
  }

  private answer(request: RpcRequest): void {
    this.requestLog.push(request);
    const handler = this.handlers.get(request.method);
    if (!handler) return this.replyError(request.id, new RpcError(METHOD_NOT_FOUND, `Method not found: ${request.method}`));
    Promise.resolve()
      .then(() => handler(request.params, request))
      .then(
        (result) => this.reply(request.id, { result: result ?? null }),
        (error: unknown) => this.replyError(request.id, error),
      );
  }

  private replyError(id: RpcId, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const rpc = error instanceof RpcError ? error : new RpcError(INTERNAL_ERROR, message);
    const body: Record<string, unknown> = { code: rpc.code, message: rpc.message };
    if (rpc.data !== undefined) body.data = rpc.data;
    this.reply(id, { error: body });
  }

  private reply(id: RpcId, payload: Record<string, unknown>): void {
    if (this.isOpen) this.send({ jsonrpc: "2.0", id, ...payload });
  }
}

function parseMessage(text: string): RpcMessage | null {
  try {
    const parsed = MessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Waits on a log of method-carrying items; the timeout error lists the last methods that came. */
function waitForMethod<T extends { method: string }>(
  log: Recorder<T>,
  kind: string,
  match: Match<T>,
  opts: { timeoutMs: number | undefined; from: number | undefined },
): Promise<T> {
  const predicate = typeof match === "string" ? (item: T) => item.method === match : match;
  const what = typeof match === "string" ? `${kind} ${match}` : `a matching ${kind}`;
  const context = (): string => {
    const names = log.items.slice(-10).map((item) => item.method);
    return `received: ${names.length > 0 ? names.join(", ") : "nothing"}`;
  };
  return log.waitFor(predicate, { ...opts, what, context });
}

// --- the instance ----------------------------------------------------------------------------

type Env = { Bindings: { server: Bun.Server<LinkData> } };

class SimulatedInstance implements Instance {
  private readonly linkLog = new Recorder<Link>();
  readonly dials: Dial[] = [];
  private handedOut = 0;
  private token: string;
  private modelsFailure: number | null = null;
  private usage: unknown = null;
  private usageFailure: UsageFailure | null = null;
  private usageCount = 0;
  private personalization: Record<string, unknown> | null = null;
  private personalizationFailure: PersonalizationFailure | null = null;
  private personalizationCount = 0;
  private readonly held = new Set<() => void>();
  readonly personalizationPuts: unknown[] = [];
  private discovery: Discovery;
  private readonly app: Hono<Env>;
  private server: Bun.Server<LinkData> | null = null;
  private listenPort = 0;
  private closedForGood = false;

  constructor(private readonly opts: InstanceOptions) {
    this.token = opts.token;
    this.discovery = { protocol: opts.protocol ?? 1, protocols: opts.protocols === undefined ? [1, 2] : opts.protocols };
    this.app = this.routes();
  }

  get links(): Link[] {
    return this.linkLog.items;
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.listenPort}`;
  }

  async waitForLink(timeoutMs = DEFAULT_WAIT_MS): Promise<Link> {
    const index = await this.linkLog.waitForIndex(() => true, {
      timeoutMs,
      from: this.handedOut,
      what: `link #${this.handedOut + 1}`,
      context: () => `dials: ${this.dials.map((d) => d.status).join(", ") || "none"}`,
    });
    this.handedOut = Math.max(this.handedOut, index + 1);
    const link = this.links[index];
    if (!link) throw new Error(`lost link #${index + 1}`);
    return link;
  }

  setDiscovery(discovery: Partial<Discovery>): void {
    this.discovery = { ...this.discovery, ...discovery };
  }

  setToken(token: string): void {
    this.token = token;
  }

  failModels(status: number | null): void {
    this.modelsFailure = status;
  }

  setUsage(body: unknown): void {
    this.usage = body;
  }

  failUsage(how: UsageFailure | null): void {
    this.usageFailure = how;
  }

  get usageRequests(): number {
    return this.usageCount;
  }

  setPersonalization(body: unknown): void {
    this.personalization = body === null ? null : { ...(body as Record<string, unknown>) };
  }

  failPersonalization(how: PersonalizationFailure | null): void {
    this.personalizationFailure = how;
  }

  releasePersonalization(): void {
    for (const release of [...this.held]) release();
  }

  get personalizationRequests(): number {
    return this.personalizationCount;
  }

  get personalizationHeld(): number {
    return this.held.size;
  }

  private hold(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.held.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      this.held.add(release);
    });
  }

  async stop(opts: { code?: number; reason?: string } = {}): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    if (opts.code !== undefined) {
      for (const link of this.links) if (link.open) void link.close(opts.code, opts.reason);
    }
    await server.stop(true);
    // Bun reports each close on its own; wait for them, but not for ever.
    const gaveUp = new AbortController();
    await Promise.race([Promise.all(this.links.map((link) => link.closed)), sleep(1_000, gaveUp.signal)]);
    gaveUp.abort();
  }

  async restart(): Promise<void> {
    if (this.closedForGood) throw new Error("the instance is closed");
    if (this.server) return;
    this.server = await listenWithRetry(this.listenPort, (port) => this.serve(port));
    this.listenPort = this.server.port ?? 0;
  }

  async close(): Promise<void> {
    this.closedForGood = true;
    this.releasePersonalization();
    await this.stop();
    this.linkLog.failAll(new Error("the instance is closed"));
  }

  private serve(port: number): Bun.Server<LinkData> {
    return Bun.serve<LinkData>({
      hostname: "127.0.0.1",
      port,
      idleTimeout: 0,
      fetch: (req, server) => this.app.fetch(req, { server }),
      websocket: {
        open: (ws) => {
          ws.data.link.attach(ws);
          this.linkLog.push(ws.data.link);
        },
        message: (ws, message) => ws.data.link.received(message),
        drain: (ws) => ws.data.link.drained(),
        close: (ws, code, reason) => ws.data.link.detached({ code, reason }),
      },
    });
  }

  private authorized(header: string | undefined): boolean {
    return header === `Bearer ${this.token}`;
  }

  private routes(): Hono<Env> {
    const app = new Hono<Env>();
    const unauthorized = { detail: "Invalid or missing device token" };
    app.get("/.well-known/lembas.json", (c) => {
      const { protocol, protocols } = this.discovery;
      return c.json(protocols === null ? { name: this.name, protocol } : { name: this.name, protocol, protocols });
    });
    app.get("/api/v1/instance", (c) => {
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      const scopes = this.opts.tokenScopes;
      return c.json({ name: this.name, version: this.opts.version ?? "0.0.0-test", ...(scopes ? { token: { scopes } } : {}) });
    });
    app.get("/v1/usage", async (c) => {
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      this.usageCount++;
      const failure = this.usageFailure;
      if (failure?.kind === "500") return c.json({ detail: "usage is down" }, 500);
      if (failure?.kind === "garbage") return c.text("<html>not usage</html>", 200, { "content-type": "application/json" });
      if (failure?.kind === "slow") await sleep(failure.slowMs ?? 10_000);
      if (this.usage === null) return c.json({ detail: "Not Found" }, 404);
      return c.json(this.usage as object);
    });
    app.get("/v1/me/personalization", async (c) => {
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      this.personalizationCount++;
      const failure = this.personalizationFailure;
      if (failure?.kind === "500") return c.json({ detail: "personalization is down" }, 500);
      if (failure?.kind === "403" && failure.get) return c.json(failure.detail === undefined ? {} : { detail: failure.detail }, 403);
      if (failure?.kind === "slow") await this.hold(failure.slowMs ?? 10_000);
      if (this.personalization === null) return c.json({ detail: "Not Found" }, 404);
      return c.json(this.personalization);
    });
    app.put("/v1/me/personalization", async (c) => {
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      const body: unknown = await c.req.json().catch(() => null);
      this.personalizationPuts.push(body);
      const failure = this.personalizationFailure;
      if (failure?.kind === "500") return c.json({ detail: "personalization is down" }, 500);
      if (failure?.kind === "403") return c.json(failure.detail === undefined ? {} : { detail: failure.detail }, 403);
      if (failure?.kind === "422") return c.json({ detail: [{ loc: ["body", failure.field], msg: "Input should be a valid string", type: "string_type" }] }, 422);
      if (this.personalization === null) return c.json({ detail: "Not Found" }, 404);
      // LLeMbas accepts a partial PUT: the fields not sent keep what was saved.
      this.personalization = { ...this.personalization, ...(body as Record<string, unknown>) };
      return c.json(this.personalization);
    });
    app.all("/v1/*", async (c) => {
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      const model = this.opts.model;
      if (!model) return c.json({ error: { message: "no scripted model attached", type: "server_error" } }, 503);
      if (this.modelsFailure !== null && c.req.method === "GET" && c.req.path === "/v1/models") {
        return new Response(JSON.stringify({ error: { message: "the model list is down", type: "server_error" } }), {
          status: this.modelsFailure,
          headers: { "content-type": "application/json" },
        });
      }
      return model.handle(c.req.raw);
    });
    app.all("/mcp", (c) => {
      const handler = this.opts.mcp;
      if (!handler) return c.json({ detail: "Not Found" }, 404);
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      return handler(c.req.raw);
    });
    app.get("/api/devices/link", (c) => {
      const dial: Dial = { headers: c.req.raw.headers, status: 401, time: Date.now() };
      this.dials.push(dial);
      if (!this.authorized(c.req.header("authorization"))) return c.json(unauthorized, 401);
      const link = new LinkImpl(c.req.raw.headers, (p) => this.speaks(p));
      if (!c.env.server.upgrade(c.req.raw, { data: { link } })) {
        dial.status = 426;
        return c.json({ detail: "WebSocket upgrade required" }, 426);
      }
      dial.status = 101;
      return new Response(null); // ignored by Bun once upgraded
    });
    app.notFound((c) => c.json({ detail: "Not Found" }, 404));
    return app;
  }

  private get name(): string {
    return this.opts.name ?? "test-instance";
  }

  private speaks(protocol: number): boolean {
    const { protocol: single, protocols } = this.discovery;
    return (protocols ?? [single]).includes(protocol);
  }
}

/** Binds `port` (0: any), retrying briefly while a just-closed listener still holds it. */
async function listenWithRetry<T>(port: number, listen: (port: number) => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return listen(port);
    } catch (error) {
      if (port === 0 || attempt >= 50) throw error;
      await sleep(20);
    }
  }
}
