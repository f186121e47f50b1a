// What the engine's sessions need of MCP, and what a front end's wiring gives them: owned by mcp/
// (the engine's servant, as the model layer is), so that mcp/ never imports the engine.
import type { Tool } from "../tools/tool.ts";
import type { ServerToApprove } from "./from-project.ts";
import type { McpServerSpec } from "./spec.ts";

/** What a session needs of an MCP hub (src/mcp/hub.ts's McpHub). */
export type SessionHub = {
  start(specs: readonly McpServerSpec[], signal: AbortSignal): Promise<{ server: string; message: string }[]>;
  tools(): Tool[];
  stop(): Promise<void>;
};

export type SessionHubOptions = {
  /** The tools' environment (secrets left out): what a stdio server starts with, under its own env. */
  env: Record<string, string>;
  /** Where a stdio server without a cwd of its own runs: the session's. */
  cwd: string;
  /**
   * The tools' sandbox stdio servers start in, as bash's commands do (src/mcp/sandboxed.ts): the
   * dirs hidden from them and the project's root. None: they start as they are.
   */
  sandbox?: { hidden: readonly string[]; root: string };
  onNotice: (message: string) => void;
};

/** A project's .mcp.json whose servers wait for the person's yes. */
export type PendingApproval = {
  path: string;
  servers: readonly ServerToApprove[];
  /** Keeps the yes in the store (with the file's hash); the file's servers, as approved. */
  approve(): { specs: McpServerSpec[]; problems: string[] };
  /** The same servers for this session only (a yes nobody gave in person: `lembas run --yes`): nothing is kept. */
  allowForSession(): { specs: McpServerSpec[]; problems: string[] };
};

/** A session's servers from every source, merged (one a name); what could not be used, a sentence each. */
export type GatheredServers = { specs: McpServerSpec[]; problems: string[]; pending: PendingApproval | null };

/** Where sessions' MCP servers come from and what runs them: the front end's (src/mcp/wiring.ts). */
export type McpWiring = {
  /**
   * The servers of a session at `place`: the editor's, config.yaml's, the trusted project's approved
   * .mcp.json, the logins' instances (as the store says: never waiting for an instance). Null when
   * it can have none: then nothing is loaded.
   */
  gather(place: { root: string; cwd: string }, editor: readonly McpServerSpec[]): Promise<GatheredServers> | null;
  hub(options: SessionHubOptions): Promise<SessionHub>;
  /** Gives up what runs in the background for the sessions to come (the instances' /mcp probes): the engine stops. */
  stop?(): void;
};
