import type { Tool } from "../tools/tool.ts";
import type { ConnectionState, McpConnection } from "./connection.ts";
import { mcpTool } from "./mcp-tool.ts";
import { offeredToolName } from "./names.ts";
import type { McpServerSpec } from "./spec.ts";

export type McpHubOptions = {
  /** How long a server has to start and list its tools (default 10 s). */
  startMs?: number;
  /** How long one tool call may take (default 60 s). */
  callMs?: number;
  /** The longest message a stdio server may send (default 32 MB). */
  maxMessageBytes?: number;
  /**
   * The environment stdio servers start with, under each spec's own `env` (the wiring passes the
   * tools' environment, secrets left out); default: HOME, LOGNAME, PATH, SHELL, TERM, USER.
   */
  env?: Record<string, string>;
  /** Where a stdio server without a `cwd` of its own runs (default: this process's). */
  cwd?: string;
  /**
   * The argv a stdio server is spawned with, for its own and its cwd: the wiring puts the tools'
   * sandbox around it (src/mcp/sandboxed.ts); default: as it is.
   */
  wrap?: (argv: string[], cwd: string) => string[];
  /** Something a person should know (a crash, a restart, a malformed message): a notice, level warn. */
  onNotice?: (message: string) => void;
};

/** A server that did not start, in a sentence naming it. */
export type McpProblem = { server: string; message: string };

/** One server as `lembas mcp list` shows it. */
export type McpServerStatus = { name: string; source: McpServerSpec["source"]; state: ConnectionState; tools: string[] };

const DEFAULTS = { startMs: 10_000, callMs: 60_000, maxMessageBytes: 32_000_000 };
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * A session's MCP servers: started together (each with its time limit; one that does not start is
 * a problem, the others go on), their tools offered as `mcp__<server>__<tool>`, stopped with the
 * session. The SDK is loaded by the first start with a server, never before.
 */
export class McpHub {
  private connections: McpConnection[] = [];
  private offered: Tool[] = [];

  constructor(private readonly options: McpHubOptions = {}) {}

  /** Starts every server in parallel; resolves when each has started or failed, with the failures. */
  async start(specs: readonly McpServerSpec[], signal: AbortSignal): Promise<McpProblem[]> {
    if (specs.length === 0) return [];
    const { McpConnection } = await import("./connection.ts");
    const problems: McpProblem[] = [];
    const seen = new Map(this.connections.map((c) => [c.spec.name, c.spec.source]));
    const fresh: McpConnection[] = [];
    for (const spec of specs) {
      const first = seen.get(spec.name);
      if (first) {
        problems.push({ server: spec.name, message: `MCP server "${spec.name}" is named twice; only the first (from ${first}) is used.` });
        continue;
      }
      seen.set(spec.name, spec.source);
      fresh.push(new McpConnection(spec, this.connectionDeps()));
    }
    // Kept before they start, so that a stop meanwhile stops them too.
    this.connections.push(...fresh);
    const started = await Promise.allSettled(fresh.map((c) => c.start(signal)));
    started.forEach((outcome, i) => {
      if (outcome.status === "rejected") problems.push({ server: fresh[i]!.spec.name, message: String((outcome.reason as Error).message) });
    });
    this.offered = this.makeTools();
    return problems;
  }

  /** The tools of every server that started, as the model is offered them. */
  tools(): Tool[] {
    return this.offered;
  }

  servers(): McpServerStatus[] {
    return this.connections.map((c) => ({ name: c.spec.name, source: c.spec.source, state: c.state, tools: c.tools.map((t) => t.name) }));
  }

  /** The process ids of the stdio servers that run (for checks that none is left behind). */
  pids(): number[] {
    return this.connections.flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
  }

  /** Stops every server; resolves once all are gone. The hub offers no tools after. */
  async stop(): Promise<void> {
    const connections = this.connections;
    this.connections = [];
    this.offered = [];
    await Promise.all(connections.map((c) => c.stop()));
  }

  private makeTools(): Tool[] {
    const taken = new Set<string>();
    return this.connections.flatMap((connection) =>
      connection.state !== "up"
        ? []
        : connection.tools.map((definition) =>
            mcpTool(offeredToolName(connection.spec.name, definition.name, taken), connection.spec.name, definition, (args, ctx) =>
              connection.call(definition.name, args, { signal: ctx.signal, vision: ctx.model.vision }),
            ),
          ),
    );
  }

  private connectionDeps() {
    const notice = this.options.onNotice ?? (() => undefined);
    return {
      limits: {
        startMs: this.options.startMs ?? DEFAULTS.startMs,
        callMs: this.options.callMs ?? DEFAULTS.callMs,
        maxMessageBytes: this.options.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
      },
      env: this.options.env ?? inheritedEnv(),
      cwd: this.options.cwd ?? process.cwd(),
      ...(this.options.wrap ? { wrap: this.options.wrap } : {}),
      notice,
    };
  }
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
