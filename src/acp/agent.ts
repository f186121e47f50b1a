// Loaded before anything else by serve --stdio, which answers initialize with it before zod, the
// dispatcher and the engine load (early-initialize.ts): it imports nothing that builds at load.
import type { Config, Mode } from "../config/schema.ts";
import { EDITOR_MCP_CAPABILITIES, LINK_MCP_CAPABILITIES } from "../mcp/transports-offered.ts";
import { HARNESS_SPEC, VERSION } from "../version.ts";

/** The link protocol this CLI speaks (spec: _meta.lembas.protocol in initialize, protocol in hello). */
export const LEMBAS_PROTOCOL = 2;

/** Where the agent is served: to an editor on stdio, or to a LLeMbas instance over the link. */
export type Transport = "stdio" | "link";

/** The device's limits for remote work, said in initialize; null on stdio. */
export type Limits = { roots: string[]; max_mode: Mode };

/**
 * The capability strings this build promises on a transport. Only what works there is listed:
 * a client relies on nothing unlisted.
 */
export function capabilities(transport: Transport, config: Pick<Config, "remote"> | null): string[] {
  // (with the terminal capability comes "shell": shell and integration in terminal/open's answer)
  const common = ["turns", "attachments", "commands"];
  if (transport === "stdio") return common;
  const link = ["directories", "configure", "steer", "sessions", "status", "delete", "compact", "title", "model", "ask", "plan", "files", ...common];
  if (config?.remote.terminal) link.push("terminal", "shell");
  return link;
}

/** The initialize result, exactly as the spec shows it. The config is read on the link only (null: not read yet). */
export function initializeResult(input: {
  transport: Transport;
  config: Pick<Config, "remote"> | null;
  /** The protocol said to this peer: 2 only to an instance that lists it (link), else 1. */
  protocol: number;
  limits: Limits | null;
  connection: string | null;
}) {
  return {
    protocolVersion: 1,
    agentCapabilities: {
      // An editor's session comes back whole (session/load replays it); the link has its own history.
      loadSession: input.transport === "stdio",
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { ...(input.transport === "stdio" ? EDITOR_MCP_CAPABILITIES : LINK_MCP_CAPABILITIES) },
      // An editor lists the sessions kept in the store, reopens one (resume: without its history
      // replayed), closes one and forks one.
      ...(input.transport === "stdio" ? { sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {} } } : {}),
    },
    authMethods: [],
    agentInfo: { name: "LLeMbas CLI", version: VERSION },
    _meta: {
      lembas: {
        protocol: input.protocol,
        harness_spec: HARNESS_SPEC,
        limits: input.limits,
        connection: input.connection,
        capabilities: capabilities(input.transport, input.config),
      },
    },
  };
}
