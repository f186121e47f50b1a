import type { Config, McpServerConfig } from "../config/schema.ts";
import type { Vars } from "./expand.ts";
import { entryTransport, type McpProblem, type ServerEntry } from "./entry.ts";
import type { McpServerSpec } from "./spec.ts";

/** config.yaml's `mcp:` entry as a command or an url (the schema has made sure it is one of them). */
export function configEntry(server: McpServerConfig): ServerEntry {
  if (server.url !== undefined) return { kind: "http", url: server.url, headers: server.headers ?? {} };
  return { kind: "stdio", command: server.command ?? "", args: server.args ?? [], env: server.env ?? {} };
}

/**
 * config.yaml's MCP servers, for every session (source "config"), with `${VAR}` expanded from the
 * person's environment; one whose variables are not set is a problem, not a spec.
 */
export function configServers(config: Pick<Config, "mcp">, vars: Vars): { specs: McpServerSpec[]; problems: McpProblem[] } {
  const specs: McpServerSpec[] = [];
  const problems: McpProblem[] = [];
  for (const [name, server] of Object.entries(config.mcp)) {
    const made = entryTransport(configEntry(server), vars);
    if (made.ok) specs.push({ name, source: "config", transport: made.transport });
    else problems.push({ name, problem: `config.yaml's mcp.${name}: ${made.problem}` });
  }
  return { specs, problems };
}
