import { z } from "zod";
import { toolSafeName } from "./names.ts";
import type { McpServerSpec } from "./spec.ts";
import { EDITOR_MCP_CAPABILITIES, type McpCapabilities } from "./transports-offered.ts";

export { EDITOR_MCP_CAPABILITIES, LINK_MCP_CAPABILITIES, type McpCapabilities } from "./transports-offered.ts";

const NameValue = () => z.looseObject({ name: z.string().min(1), value: z.string() });

// As ACP's schema types McpServer (McpServerStdio | McpServerHttp & {type:"http"} | McpServerSse & {type:"sse"}).
// Made on first use: serve --stdio loads this module before its first answer, and most session/new name no server.
const stdioServer = () =>
  z.looseObject({
    type: z.literal("stdio").optional(),
    name: z.string(),
    command: z.string().min(1),
    args: z.array(z.string()),
    env: z.array(NameValue()),
  });
const urlServer = () =>
  z.looseObject({
    type: z.enum(["http", "sse"]),
    name: z.string(),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.array(NameValue()),
  });
let schemas: { StdioServer: ReturnType<typeof stdioServer>; UrlServer: ReturnType<typeof urlServer> } | null = null;
const made = () => (schemas ??= { StdioServer: stdioServer(), UrlServer: urlServer() });

/**
 * Why session/new over the link takes no MCP servers: a stdio server is a command the instance
 * would have the device run, past every permission; the device's own config.yaml names its servers.
 */
export const LINK_SERVERS_REFUSAL =
  "mcpServers: a session opened from the web takes no MCP servers (each would be a command run on this device); add them to the device's config.yaml mcp: instead";

export type EditorServers = { ok: true; specs: McpServerSpec[] } | { ok: false; error: string };

/**
 * session/new's `mcpServers` (ACP's McpServer[]) as specs of source "editor", or the sentence a
 * -32602 answer says for the first entry lembas cannot take: malformed, a repeated name, or a
 * transport `capabilities` does not take.
 */
export function editorServers(raw: unknown, capabilities: McpCapabilities = EDITOR_MCP_CAPABILITIES): EditorServers {
  if (raw === undefined || raw === null) return { ok: true, specs: [] };
  if (!Array.isArray(raw)) return { ok: false, error: "mcpServers must be a list of MCP servers" };
  const specs: McpServerSpec[] = [];
  for (const [index, entry] of raw.entries()) {
    const made = editorServer(entry, index, capabilities);
    if (!made.ok) return made;
    const clash = specs.find((s) => s.name === made.spec.name);
    if (clash) return { ok: false, error: `${where(index, entry)}: the name ${JSON.stringify(made.spec.name)} is taken by an earlier server of mcpServers; each needs its own` };
    specs.push(made.spec);
  }
  return { ok: true, specs };
}

function editorServer(entry: unknown, index: number, capabilities: McpCapabilities): { ok: true; spec: McpServerSpec } | { ok: false; error: string } {
  const at = where(index, entry);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return { ok: false, error: `${at} must be an object: {name, command, args, env} or {type: "http", name, url, headers}` };
  const type = (entry as { type?: unknown }).type;
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") {
    return { ok: false, error: `${at} has type ${JSON.stringify(type)}; an MCP server is a command (no type), "http" or "sse"` };
  }
  if (type === "http" || type === "sse") {
    const parsed = made().UrlServer.safeParse(entry);
    if (!parsed.success) return { ok: false, error: `${at}: ${issueSentence(parsed.error.issues[0])}` };
    // SSE is not a transport an McpServerSpec names (only streamable HTTP), whatever capabilities says.
    if (type === "sse") return { ok: false, error: `${at} is an sse server, and lembas does not speak MCP over SSE (its initialize answer says mcpCapabilities.sse false): give the server's streamable HTTP url as type "http" if it has one, or the server as a command` };
    if (!capabilities.http) return { ok: false, error: `${at} is an http server, and lembas takes only stdio servers here (its initialize answer says mcpCapabilities ${JSON.stringify(capabilities)}): give lembas the server as a command, or add its url to config.yaml's mcp:` };
    const name = serverName(parsed.data.name);
    if (!name) return { ok: false, error: `${at}: name must have a letter or a digit` };
    return { ok: true, spec: { name, source: "editor", transport: { type: "http", url: parsed.data.url, headers: pairs(parsed.data.headers) } } };
  }
  const parsed = made().StdioServer.safeParse(entry);
  if (!parsed.success) return { ok: false, error: `${at}: ${issueSentence(parsed.error.issues[0])}` };
  const name = serverName(parsed.data.name);
  if (!name) return { ok: false, error: `${at}: name must have a letter or a digit` };
  return { ok: true, spec: { name, source: "editor", transport: { type: "stdio", command: parsed.data.command, args: parsed.data.args, env: pairs(parsed.data.env) } } };
}

function serverName(name: string): string | null {
  const safe = toolSafeName(name);
  return /[A-Za-z0-9]/.test(safe) ? safe : null;
}

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map((p) => [p.name, p.value]));
}

/** `mcpServers[2] ("git")`: the entry a sentence is about. */
function where(index: number, entry: unknown): string {
  const name = typeof entry === "object" && entry !== null && "name" in entry && typeof entry.name === "string" ? ` (${JSON.stringify(entry.name)})` : "";
  return `mcpServers[${index}]${name}`;
}

const EXPECTED: Record<string, string> = { string: "a string", array: "a list", object: "an object" };

function issueSentence(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "is not an MCP server";
  const key = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "");
  if (issue.code === "invalid_type") {
    const pairsKey = /^(env|headers)$/.test(key);
    if (issue.message.endsWith("received undefined")) return `${key} is missing${pairsKey ? " (a list of {name, value})" : ""}`;
    if (/^(env|headers)\[\d+\]$/.test(key)) return `${key} must be a {name, value} pair`;
    return `${key} must be ${pairsKey ? "a list of {name, value}" : (EXPECTED[issue.expected] ?? issue.expected)}`;
  }
  if (issue.code === "invalid_format" && issue.format === "url") return `${key} must be an http(s) URL`;
  if (issue.code === "too_small") return `${key} must not be empty`;
  return `${key}: ${issue.message}`;
}
