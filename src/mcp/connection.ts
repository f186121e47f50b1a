import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, CallToolResultSchema, ErrorCode, McpError, type Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { errorCode, errorMessage } from "../errors.ts";
import type { ToolResult } from "../tools/tool.ts";
import { untilAborted } from "../until-aborted.ts";
import { VERSION } from "../version.ts";
import { outputProblem } from "./output-check.ts";
import { toToolResult } from "./result.ts";
import type { McpServerSpec } from "./spec.ts";
import { StdioTransport } from "./stdio-transport.ts";
import { listTools, type RefusedTool, refusedNotice } from "./tool-list.ts";

export type { McpToolDefinition };

/** The time limits and sizes a connection keeps to. */
export type ConnectionLimits = {
  /** From spawning (or the first request) to the tool list. */
  startMs: number;
  /** One tool call, from the request to its answer. */
  callMs: number;
  /** The longest message a stdio server may send, in bytes. */
  maxMessageBytes: number;
};

export type ConnectionDeps = {
  limits: ConnectionLimits;
  /** The environment a stdio server starts with, under the spec's own `env`. */
  env: Record<string, string>;
  cwd: string;
  /** The argv a stdio server is spawned with, for its own (the tools' sandbox around it); none: as it is. */
  wrap?: (argv: string[], cwd: string) => string[];
  /** Something a person should know about (a restart, a malformed message). */
  notice(message: string): void;
};

/** Where a server is: up, crashed (restarted at the next call), down for good, or stopped. */
export type ConnectionState = "up" | "crashed" | "down" | "stopped";

/** Why an in-flight call was given up, when it was not the server's own answer. */
class CallFault extends Error {}

/** The most malformed-message notices one server gets; the rest are only counted. */
const MAX_NOTICES = 3;

/**
 * One MCP server of a session: started (with a time limit), its tools listed, called (each call
 * with a time limit, cancelled with the turn), restarted once after a crash, stopped. Every
 * failure is a sentence naming the server.
 */
export class McpConnection {
  state: ConnectionState = "down";
  tools: McpToolDefinition[] = [];
  private client: Client | undefined;
  private transport: Transport | undefined;
  private downReason = "it was never started";
  private readonly inflight = new Set<AbortController>();
  private lastMalformed: string | undefined;
  private malformedCount = 0;
  private refusedTold = "";
  private restarting: Promise<string | null> | undefined;
  /** Aborted by stop: a start under way gives up. */
  private readonly life = new AbortController();

  constructor(
    readonly spec: McpServerSpec,
    private readonly deps: ConnectionDeps,
  ) {}

  /** Starts the server and lists its tools; throws an Error whose message says why it did not start. */
  async start(signal: AbortSignal): Promise<void> {
    try {
      this.tools = await this.connect(signal);
      this.state = "up";
    } catch (error) {
      if (this.state !== "stopped") this.state = "down";
      this.downReason = errorMessage(error);
      throw new Error(`MCP server "${this.spec.name}" did not start: ${this.downReason}`);
    }
  }

  /** Calls one of the server's tools; never throws: a failure is an error result the model sees. */
  async call(tool: string, args: Record<string, unknown>, ctx: { signal: AbortSignal; vision: boolean }): Promise<ToolResult> {
    const problem = await this.ready(ctx.signal);
    if (problem) return { output: problem, isError: true };
    const client = this.client;
    if (!client) return { output: `MCP server "${this.spec.name}" is not running.`, isError: true };
    const call = new AbortController();
    const cancel = () => call.abort(new CallFault("The call was cancelled."));
    if (ctx.signal.aborted) cancel();
    ctx.signal.addEventListener("abort", cancel, { once: true });
    this.inflight.add(call);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        signal: call.signal,
        timeout: this.deps.limits.callMs,
      });
      if ("toolResult" in result && !("content" in result)) return { output: JSON.stringify(result.toolResult, null, 2) };
      const problem = await outputProblem(this.spec.name, this.tools.find((t) => t.name === tool), result as CallToolResult);
      if (problem) return { output: problem, isError: true };
      return toToolResult(result as CallToolResult, { server: this.spec.name, tool, vision: ctx.vision });
    } catch (error) {
      return { output: await this.callError(tool, error, call.signal), isError: true };
    } finally {
      ctx.signal.removeEventListener("abort", cancel);
      this.inflight.delete(call);
    }
  }

  /** Stops the server (a stdio one with its process group); resolves once it is gone. */
  async stop(): Promise<void> {
    this.state = "stopped";
    this.life.abort();
    const client = this.client;
    this.client = undefined;
    for (const call of this.inflight) call.abort(new CallFault(`MCP server "${this.spec.name}" was stopped.`));
    await client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
  }

  /** The server's process id (stdio), while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined;
  }

  /** Null when a call may go ahead; else the sentence the call answers with. A crashed server is restarted here, once. */
  private async ready(signal: AbortSignal): Promise<string | null> {
    if (this.state === "up") return null;
    if (this.state === "stopped") return `MCP server "${this.spec.name}" was stopped with its session.`;
    if (this.state === "down") return `MCP server "${this.spec.name}" is down: ${this.downReason}`;
    // Calls that come in together share the one restart; it keeps to its own time limit, not to one
    // caller's signal (a caller cancelled stops waiting, and the others still get the server).
    this.restarting ??= this.restart().finally(() => {
      this.restarting = undefined;
    });
    return untilAborted(this.restarting, signal, () => "The call was cancelled.");
  }

  private async restart(): Promise<string | null> {
    try {
      this.tools = await this.connect();
      if (this.state === "stopped") return `MCP server "${this.spec.name}" was stopped with its session.`;
      this.state = "up";
      this.deps.notice(`MCP server "${this.spec.name}" was restarted after it stopped.`);
      return null;
    } catch (error) {
      if (this.state === "stopped") return `MCP server "${this.spec.name}" was stopped with its session.`;
      this.state = "down";
      this.downReason = `it stopped, and did not start again: ${errorMessage(error)}`;
      this.deps.notice(`MCP server "${this.spec.name}" is down: ${this.downReason}`);
      return `MCP server "${this.spec.name}" is down: ${this.downReason}`;
    }
  }

  /** `signal`: the caller's, for a first start; a restart has none (it is shared). */
  private async connect(signal?: AbortSignal): Promise<McpToolDefinition[]> {
    const { startMs } = this.deps.limits;
    const limit = AbortSignal.any([...(signal ? [signal] : []), this.life.signal, AbortSignal.timeout(startMs)]);
    const transport = this.makeTransport();
    const client = new Client({ name: "lembas", version: VERSION }, { capabilities: {} });
    client.onclose = () => this.closed(client);
    // Out-of-band trouble (a response to no request, say) is not the call's; malformed lines are told apart.
    client.onerror = () => undefined;
    this.transport = transport;
    this.client = client;
    this.lastMalformed = undefined;
    try {
      if (limit.aborted) throw new Error("the session was cancelled");
      await client.connect(transport, { signal: limit, timeout: startMs });
      const { tools, refused } = await listTools(client, limit, startMs);
      if (this.life.signal.aborted) throw new Error("stopped");
      this.tellRefused(refused);
      return tools;
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw new Error(await this.startError(error, signal, limit));
    }
  }

  /** Says which tools are left out, once for each set of them (a restart that lists the same says nothing). */
  private tellRefused(refused: readonly RefusedTool[]): void {
    const told = refused.map((r) => r.name).join("\n");
    if (refused.length === 0 || told === this.refusedTold) return;
    this.refusedTold = told;
    this.deps.notice(refusedNotice(this.spec.name, refused));
  }

  private makeTransport(): Transport {
    const t = this.spec.transport;
    if (t.type === "http") return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: t.headers } });
    return new StdioTransport({
      command: t.command,
      args: t.args,
      env: { ...this.deps.env, ...t.env },
      cwd: t.cwd ?? this.deps.cwd,
      ...(this.deps.wrap ? { wrap: this.deps.wrap } : {}),
      maxMessageBytes: this.deps.limits.maxMessageBytes,
      onMalformed: (problem) => this.malformed(problem),
    });
  }

  /** A line that is no JSON-RPC message: a notice, and the calls waiting on the server fail (their answer cannot be trusted). */
  private malformed(problem: string): void {
    this.lastMalformed = problem;
    this.malformedCount++;
    if (this.malformedCount <= MAX_NOTICES) this.deps.notice(`MCP server "${this.spec.name}" ${problem}.`);
    for (const call of this.inflight) call.abort(new CallFault(`MCP server "${this.spec.name}" ${problem}; the call was given up.`));
  }

  private closed(client: Client): void {
    if (this.client !== client || this.state !== "up") return;
    this.client = undefined;
    this.state = "crashed";
    this.deps.notice(`MCP server "${this.spec.name}" stopped (${this.exitWords()}); it is restarted at the next call.`);
  }

  private async startError(error: unknown, signal: AbortSignal | undefined, limit: AbortSignal): Promise<string> {
    if (this.life.signal.aborted) return "it was stopped while it started";
    if (signal?.aborted) return "the session was cancelled while it started";
    const garbage = this.lastMalformed ? `; it ${this.lastMalformed}` : "";
    // Before its exit is looked at: a server that timed out was stopped by us.
    if (limit.aborted || isCode(error, ErrorCode.RequestTimeout)) {
      return `it did not answer within ${seconds(this.deps.limits.startMs)}${garbage}${this.stderrWords()}`;
    }
    const words = await this.exitWordsSettled(isBrokenPipe(error));
    if (words) return `it ${words} before it answered${garbage}${this.stderrWords()}`;
    if (error instanceof StreamableHTTPError) return httpWords(this.spec, error);
    return `${errorMessage(error)}${garbage}${this.stderrWords()}`;
  }

  private async callError(tool: string, error: unknown, signal: AbortSignal): Promise<string> {
    const name = `MCP server "${this.spec.name}"`;
    if (signal.aborted && signal.reason instanceof CallFault) return signal.reason.message;
    if (isCode(error, ErrorCode.RequestTimeout)) {
      return `${name} did not answer the ${tool} call within ${seconds(this.deps.limits.callMs)}; the call was cancelled.`;
    }
    if (isCode(error, ErrorCode.ConnectionClosed) || this.state === "crashed") {
      const words = await this.exitWordsSettled();
      return `${name} stopped during the ${tool} call (${words ?? "its connection closed"})${this.stderrWords()}. It is restarted at the next call.`;
    }
    if (error instanceof StreamableHTTPError) return `${name} failed the ${tool} call: ${httpWords(this.spec, error)}.`;
    return `${name} failed the ${tool} call: ${errorMessage(error)}`;
  }

  private exitWords(): string {
    return (this.transport instanceof StdioTransport && this.transport.exitDescription()) || "its connection closed";
  }

  /**
   * How a stdio server ended, waiting a moment for its exit to be seen; undefined while it runs.
   * GONE: a write found its pipe broken, so it ended of itself even if a close came after.
   */
  private async exitWordsSettled(gone = false): Promise<string | undefined> {
    if (!(this.transport instanceof StdioTransport)) return undefined;
    const transport = this.transport;
    const opts = { evenAfterClose: gone };
    // An exit after our own close (the SDK's, or ours) is not the server's: nothing to wait for.
    for (let i = 0; i < 10 && !transport.exitDescription(opts) && (gone || !transport.closing); i++) await Bun.sleep(10);
    if (transport.exitDescription(opts)) await transport.stderrRead(100);
    return transport.exitDescription(opts);
  }

  private stderrWords(): string {
    if (!(this.transport instanceof StdioTransport)) return "";
    const tail = this.transport.stderr.text();
    return tail ? `; its stderr ended with:\n${tail}` : "";
  }
}

/** An HTTP server's refusal in words: its address (no query), the status, what it said. Headers are never named. */
function httpWords(spec: McpServerSpec, error: StreamableHTTPError): string {
  const url = spec.transport.type === "http" ? new URL(spec.transport.url) : undefined;
  const where = url ? `${url.origin}${url.pathname}` : "the server";
  const refused = error.code === 401 || error.code === 403 ? " (its credentials were refused)" : "";
  return `${where} answered HTTP ${error.code ?? "with an error"}${refused}: ${error.message}`;
}

function isCode(error: unknown, code: number): boolean {
  return error instanceof McpError && error.code === code;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** A write to a server whose end of the pipe is closed: it exited (or shut its stdin) first. */
function isBrokenPipe(error: unknown): boolean {
  // The transport's own error wraps the write's, so its message is read too.
  return errorCode(error) === "EPIPE" || /\bEPIPE\b|broken pipe/i.test(errorMessage(error));
}
