/** Where an MCP server a session uses comes from. */
export type McpSource = "editor" | "config" | "project" | "instance";

/** How an MCP server is reached: a command it runs as (stdio), or an URL (streamable HTTP). */
export type McpTransport =
  | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: "http"; url: string; headers: Record<string, string> };

/**
 * One MCP server as the sources name it (the editor's session/new, config.yaml's `mcp:`, a
 * project's approved `.mcp.json`, a login's instance `/mcp`). `name` is what its tools are
 * offered as: `mcp__<name>__<tool>`. `secretHeaders` names headers never to log (a device token).
 */
export type McpServerSpec = { name: string; source: McpSource; transport: McpTransport; secretHeaders?: string[] };
