import type { ListedServer } from "../mcp/listing.ts";
import type { ServerInspection } from "../mcp/list-text.ts";
import { sanitizeName } from "../mcp/names.ts";
import type { Finding } from "./doctor-finding.ts";

/**
 * config.yaml's `web_search: mcp__NAME__TOOL`: whether a server of that name is configured and,
 * where it started, offers that tool (a session without it offers web_search only where the
 * provider has a search of its own).
 */
export function webSearchFinding(named: string, servers: readonly ListedServer[], inspected: ReadonlyMap<string, ServerInspection>): Finding {
  const part = named.split("__")[1] ?? "";
  const server = servers.find((s) => sanitizeName(s.name) === part);
  const todo = "set web_search to one of the tools lembas mcp list shows (mcp__NAME__TOOL), or unset it";
  if (!server) return { ok: false, text: `web_search: ${named} names no MCP server "${part}"`, todo };
  const found = inspected.get(server.name);
  if (!found) return { ok: true, text: `web_search: by ${named}` };
  if (!found.starts) return { ok: false, text: `web_search: ${named} is not there while its server does not start`, todo: "fix the server (its line above says why)" };
  const names = found.tools.map((tool) => `mcp__${part}__${sanitizeName(tool)}`);
  if (names.includes(named)) return { ok: true, text: `web_search: by ${named}` };
  return { ok: false, text: `web_search: ${named} is not one of the tools of "${server.name}" (${found.tools.join(", ") || "it has none"})`, todo };
}
