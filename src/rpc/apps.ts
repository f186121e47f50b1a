import type * as sdk from "@agentclientprotocol/sdk";
import { agentMethodParams } from "./acp-params.ts";
import { Connection, type Id, type IncomingRequest, type SendOptions } from "./json-rpc.ts";
import { RequestError } from "./request-error.ts";
import type { Stream } from "./stream.ts";

type MaybePromise<T> = T | Promise<T>;
/** What reads a request's params: a function, or a schema with `parse` (zod's). */
export type ParamsParser<P> = ((params: unknown) => P) | { parse(params: unknown): P };

/** Answers that are `{}` when a handler returns nothing (the SDK's `emptyObjectResponse`). */
const EMPTY_AGENT_ANSWERS = new Set(["session/load", "session/delete", "session/close", "session/set_mode", "authenticate", "logout"]);
const EMPTY_CLIENT_ANSWERS = new Set(["fs/write_text_file", "terminal/release", "terminal/kill"]);
const orEmpty = (value: unknown) => value ?? {};

/** Calls the client's methods from an agent: session/update, approvals, the editor's files. */
export class AgentContext {
  constructor(
    private readonly connection: Connection,
    readonly requestId?: Id,
  ) {}

  request<M extends sdk.ClientRequestMethod>(method: M, params: sdk.ClientRequestParamsByMethod[M], options?: SendOptions): Promise<sdk.ClientRequestResponsesByMethod[M]>;
  request<R = unknown, P = unknown>(method: string, params?: P, options?: SendOptions): Promise<R>;
  request(method: string, params?: unknown, options?: SendOptions): Promise<unknown> {
    return this.connection.request(method, params, options, EMPTY_CLIENT_ANSWERS.has(method) ? orEmpty : undefined);
  }

  notify<M extends sdk.ClientNotificationMethod>(method: M, params: sdk.ClientNotificationParamsByMethod[M]): Promise<void>;
  notify<P = unknown>(method: string, params?: P): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.connection.notify(method, params);
  }
}

/** Calls an agent's methods from its client (the service calls a terminal's). */
export class ClientContext {
  constructor(
    private readonly connection: Connection,
    readonly requestId?: Id,
  ) {}

  request<M extends sdk.AgentRequestMethod>(method: M, params: sdk.AgentRequestParamsByMethod[M], options?: SendOptions): Promise<sdk.AgentRequestResponsesByMethod[M]>;
  request<R = unknown, P = unknown>(method: string, params?: P, options?: SendOptions): Promise<R>;
  request(method: string, params?: unknown, options?: SendOptions): Promise<unknown> {
    const answer = this.connection.request(method, params, options, EMPTY_AGENT_ANSWERS.has(method) ? orEmpty : undefined);
    if (method !== "session/close" && method !== "session/delete") return answer;
    // A session the agent no longer has is closed already.
    return answer.catch((error: unknown) => {
      if (error instanceof RequestError && error.code === -32002) return {};
      throw error;
    });
  }

  notify<P = unknown>(method: string, params?: P): Promise<void> {
    return this.connection.notify(method, params);
  }
}

type Shared = { readonly signal: AbortSignal; readonly closed: Promise<void>; close(error?: unknown): void };
export type AgentConnection = Shared & { readonly client: AgentContext };
export type ClientConnection = Shared & { readonly agent: ClientContext };

type HandlerContext<P, Peer> = { method: string; params: P; signal: AbortSignal } & Peer;
type RequestContext<P, Peer> = HandlerContext<P, Peer> & { requestId: Id };
type Handling = { parse?: ParamsParser<unknown>; run(cx: RequestContext<unknown, object>): MaybePromise<unknown> };

/** The handlers of one side, by method, and the connection that serves them. */
abstract class App<Peer extends object> {
  protected readonly requests = new Map<string, Handling>();
  protected readonly notifications = new Map<string, Handling>();

  protected add(table: Map<string, Handling>, method: string, parse: ParamsParser<unknown> | undefined, run: Handling["run"]): void {
    if (method === "*" && table.has("*")) throw new Error("A fallback handler is already registered.");
    if (!table.has(method)) table.set(method, { ...(parse ? { parse } : {}), run });
  }

  /** A known method's own check of its params (ACP's), or none: the raw params. */
  protected knownParams(_method: string): ParamsParser<unknown> | undefined {
    return undefined;
  }

  protected abstract peer(connection: Connection, requestId?: Id): Peer;

  protected open(stream: Stream): Connection {
    const connection: Connection = new Connection(stream, {
      request: (request) => this.answer(connection, request),
      notification: async ({ method, params }) => {
        const handling = this.notifications.get(method) ?? this.notifications.get("*");
        if (!handling) return;
        const exact = this.notifications.has(method);
        // A notification's params go to its check as they came (the SDK reads absent ones as {} for requests only).
        const parsed = exact ? parse(handling.parse ?? this.knownParams(method), params, false) : params;
        await handling.run({ method, params: parsed, signal: connection.signal, requestId: null, ...this.peer(connection) });
      },
    });
    return connection;
  }

  /** The request's handler, with its params parsed, and its answer. */
  protected async answer(connection: Connection, request: IncomingRequest): Promise<unknown> {
    const handling = this.requests.get(request.method) ?? this.requests.get("*");
    if (!handling) throw RequestError.methodNotFound(request.method);
    const exact = this.requests.has(request.method);
    const params = exact ? parse(handling.parse ?? this.knownParams(request.method), request.params, !handling.parse) : request.params;
    const answer = await handling.run({ method: request.method, params, signal: request.signal, requestId: request.id, ...this.peer(connection, request.id) });
    return exact && !handling.parse && EMPTY_AGENT_ANSWERS.has(request.method) && this.emptyAnswers() ? orEmpty(answer) : answer;
  }

  protected emptyAnswers(): boolean {
    return false;
  }
}

function parse(parser: ParamsParser<unknown> | undefined, params: unknown, known: boolean): unknown {
  if (!parser) return params;
  // A known method's absent params are read as {} (as the SDK does).
  const value = known ? (params ?? {}) : params;
  return typeof parser === "function" ? parser(value) : parser.parse(value);
}

/**
 * The agent's side of ACP: handlers by method (ACP's methods have their params checked as the ACP
 * SDK's schemas check them; others bring their parser), served on a message stream. Until
 * initialize has been answered, any other request is refused with -32600.
 */
export class AgentApp extends App<{ client: AgentContext }> {
  private readonly initialized = new WeakSet<Connection>();
  private readonly initializing = new WeakMap<Connection, Promise<void>>();

  constructor(readonly options: { name?: string } = {}) {
    super();
  }

  onRequest<M extends sdk.AgentRequestMethod>(method: M, handler: (cx: RequestContext<sdk.AgentRequestParamsByMethod[M], { client: AgentContext }>) => MaybePromise<sdk.AgentRequestHandlersByMethod[M] extends (cx: never) => MaybePromise<infer R> ? R : never>): this;
  onRequest(method: "*", handler: (cx: RequestContext<unknown, { client: AgentContext }>) => MaybePromise<unknown>): this;
  onRequest<P, R>(method: string, params: ParamsParser<P>, handler: (cx: RequestContext<P, { client: AgentContext }>) => MaybePromise<R>): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    const [parser, run] = handler ? [parserOrHandler as ParamsParser<unknown>, handler] : [undefined, parserOrHandler];
    if (!parser && method !== "*" && !agentMethodParams(method)) throw new Error(`Unknown ACP request method '${method}'. Pass a params parser for custom methods.`);
    this.add(this.requests, method, parser, run as Handling["run"]);
    return this;
  }

  onNotification(method: "session/cancel", handler: (cx: HandlerContext<sdk.CancelNotification, { client: AgentContext }>) => MaybePromise<void>): this;
  onNotification(method: "*", handler: (cx: HandlerContext<unknown, { client: AgentContext }>) => MaybePromise<void>): this;
  onNotification<P>(method: string, params: ParamsParser<P>, handler: (cx: HandlerContext<P, { client: AgentContext }>) => MaybePromise<void>): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    const [parser, run] = handler ? [parserOrHandler as ParamsParser<unknown>, handler] : [undefined, parserOrHandler];
    if (!parser && method !== "*" && !agentMethodParams(method)) throw new Error(`Unknown ACP notification method '${method}'. Pass a params parser for custom methods.`);
    this.add(this.notifications, method, parser, run as Handling["run"]);
    return this;
  }

  connect(stream: Stream): AgentConnection {
    const connection = this.open(stream);
    const client = new AgentContext(connection);
    return {
      client,
      get signal() {
        return connection.signal;
      },
      closed: connection.closed,
      close: (error) => connection.close(error),
    };
  }

  protected override knownParams(method: string): ParamsParser<unknown> | undefined {
    return agentMethodParams(method);
  }

  protected override emptyAnswers(): boolean {
    return true;
  }

  protected override peer(connection: Connection, requestId?: Id): { client: AgentContext } {
    return { client: new AgentContext(connection, requestId) };
  }

  /** Until initialize has been answered, any other request is refused (one sent meanwhile waits for it). */
  protected override async answer(connection: Connection, request: IncomingRequest): Promise<unknown> {
    if (this.initialized.has(connection) || !this.requests.has("initialize")) return super.answer(connection, request);
    if (request.method !== "initialize") {
      await this.initializing.get(connection);
      if (!this.initialized.has(connection)) throw RequestError.invalidRequest(undefined, `ACP connection must be initialized before '${request.method}'`);
      return super.answer(connection, request);
    }
    const answering = super.answer(connection, request);
    this.initializing.set(
      connection,
      answering.then(
        () => void this.initialized.add(connection),
        () => {},
      ),
    );
    return answering;
  }
}

/** The client's side (the service of a terminal's IPC): custom methods with their parsers, and fallbacks. */
export class ClientApp extends App<{ agent: ClientContext }> {
  constructor(readonly options: { name?: string } = {}) {
    super();
  }

  onRequest(method: "*", handler: (cx: RequestContext<unknown, { agent: ClientContext }>) => MaybePromise<unknown>): this;
  onRequest<P, R>(method: string, params: ParamsParser<P>, handler: (cx: RequestContext<P, { agent: ClientContext }>) => MaybePromise<R>): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    const [parser, run] = handler ? [parserOrHandler as ParamsParser<unknown>, handler] : [undefined, parserOrHandler];
    if (!parser && method !== "*") throw new Error(`Pass a params parser for '${method}'.`);
    this.add(this.requests, method, parser, run as Handling["run"]);
    return this;
  }

  onNotification(method: "*", handler: (cx: HandlerContext<unknown, { agent: ClientContext }>) => MaybePromise<void>): this;
  onNotification<P>(method: string, params: ParamsParser<P>, handler: (cx: HandlerContext<P, { agent: ClientContext }>) => MaybePromise<void>): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    const [parser, run] = handler ? [parserOrHandler as ParamsParser<unknown>, handler] : [undefined, parserOrHandler];
    if (!parser && method !== "*") throw new Error(`Pass a params parser for '${method}'.`);
    this.add(this.notifications, method, parser, run as Handling["run"]);
    return this;
  }

  connect(stream: Stream): ClientConnection {
    const connection = this.open(stream);
    const agent = new ClientContext(connection);
    return {
      agent,
      get signal() {
        return connection.signal;
      },
      closed: connection.closed,
      close: (error) => connection.close(error),
    };
  }

  protected override peer(connection: Connection, requestId?: Id): { agent: ClientContext } {
    return { agent: new ClientContext(connection, requestId) };
  }
}

export const agent = (options?: { name?: string }) => new AgentApp(options);
export const client = (options?: { name?: string }) => new ClientApp(options);
