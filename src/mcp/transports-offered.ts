// What initialize says of the MCP transports, apart from the servers' schemas: serve --stdio says it
// before zod loads (src/acp/early-initialize.ts).

/** The transports an agent takes from an editor, as initialize's `agentCapabilities.mcpCapabilities` says them. */
export type McpCapabilities = { http: boolean; sse: boolean };

/**
 * What lembas says in initialize on `serve --stdio` and holds an editor's session/new and
 * session/resume to: stdio servers and streamable HTTP ones (src/mcp/connection.ts reaches both);
 * SSE, MCP's older transport, is not taken.
 */
export const EDITOR_MCP_CAPABILITIES: McpCapabilities = { http: true, sse: false };

/**
 * What initialize says on the link, as the spec shows it: a session opened from the web takes no
 * MCP servers at all (LINK_SERVERS_REFUSAL).
 */
export const LINK_MCP_CAPABILITIES: McpCapabilities = { http: false, sse: false };
