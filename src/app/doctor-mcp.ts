import { existsSync } from "node:fs";
import type { Env } from "../config/paths.ts";
import type { Config } from "../config/schema.ts";
import { projectRoot } from "../engine/engine.ts";
import { listServers, type ListedServer } from "../mcp/listing.ts";
import { openDb } from "../store/db.ts";
import type { Login } from "../store/logins.ts";
import { inspectServers } from "../mcp/inspect.ts";
import { type ServerInspection, startsWith } from "../mcp/list-text.ts";
import { toolEnvironment } from "../tools/environment.ts";
import type { Finding } from "./doctor-finding.ts";
import { webSearchFinding } from "./doctor-web-search.ts";

/**
 * The MCP servers a session started in `cwd` would use (config.yaml's, the project's .mcp.json,
 * the logins' instances): a command that is not on PATH, servers waiting for approval and
 * variables that are not set are fix lines. They are started in the tools' sandbox, which hides
 * `hidden` (lembas's config and state dirs); the sandbox's own check says when there is none. Nothing configured: no lines at all.
 */
export async function checkMcpServers(input: { config: Config; dbFile: string; hidden: readonly string[]; cwd: string; env: Env; logins: readonly Login[] }): Promise<Finding[]> {
  const root = projectRoot(input.cwd);
  // Without a database there is no trust and no approval yet: only config.yaml's servers count.
  const db = existsSync(input.dbFile) ? openDb(input.dbFile) : openDb(":memory:");
  try {
    const listing = await listServers({ config: input.config, db, root, logins: existsSync(input.dbFile) ? input.logins : [], vars: input.env });
    const inspected = await inspectServers(listing, { env: toolEnvironment(input.config, input.env), cwd: root, hidden: input.hidden });
    const findings: Finding[] = [];
    if (listing.project.state === "untrusted") findings.push({ ok: true, text: `mcp: ${root}/.mcp.json is ignored, the project is not trusted` });
    for (const server of listing.servers) findings.push(serverFinding(server, input.env, root, inspected.get(server.name)));
    for (const problem of listing.problems) findings.push({ ok: false, text: `mcp ${problem.name}: ${problem.problem}`, todo: "fix it where the server is named (config.yaml's mcp: or the project's .mcp.json)" });
    if (input.config.web_search) findings.push(webSearchFinding(input.config.web_search, listing.servers, inspected));
    return findings;
  } finally {
    db.close();
  }
}

function serverFinding(server: ListedServer, env: Env, root: string, found: ServerInspection | undefined): Finding {
  const text = `mcp ${server.name} (${server.source}): ${server.what}`;
  if (server.state === "needs-approval") {
    return { ok: false, text: `${text}, ${server.note}`, todo: `run lembas mcp approve in ${root}, or start lembas there and approve them when asked` };
  }
  if (server.state === "shadowed") return { ok: true, text: `${text} (${server.note})` };
  const transport = server.spec?.transport;
  if (transport?.type === "stdio" && !Bun.which(transport.command, { PATH: env.PATH ?? "", cwd: transport.cwd ?? root })) {
    const where = server.source === "config" ? `config.yaml's mcp.${server.name}.command` : server.source === "project" ? "the project's .mcp.json" : "the server's entry";
    return { ok: false, text: `mcp ${server.name} (${server.source}): its command ${transport.command} is not on PATH`, todo: `install it, or fix ${where}` };
  }
  if (found && !found.starts) return { ok: false, text: `${text}: ${found.error}`, todo: "fix the server's entry, or run its command by hand to see why" };
  if (found) return { ok: true, text: `${text}, ${startsWith(found.tools.length)}` };
  return { ok: true, text };
}
