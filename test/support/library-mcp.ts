// A real MCP server (the SDK's, over streamable HTTP) for the simulated instance's /mcp that serves
// the account's library: one tool, `library_search`, whose answer the test chooses.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export type LibraryPassage = { text: string; title?: string; url?: string; path?: string; score?: number };

/**
 * How the tool answers: structured content `{ passages }` (default), the same as JSON text,
 * something that is no passages, an error result, or never (until cancelled).
 */
export type LibraryAnswerMode = "structured" | "json-text" | "malformed" | "error" | "hang";

export type LibraryMcp = {
  handler: (request: Request) => Promise<Response>;
  /** Every call of the tool: its arguments and the Authorization header the request came with. */
  calls: { args: Record<string, unknown>; authorization: string | null }[];
  /** Every request's Authorization header, the tool list's too. */
  authorizations: (string | null)[];
  mode: LibraryAnswerMode;
  /** Whether the tool is listed at all (false: /mcp serves no library tool). */
  listed: boolean;
};

/** A /mcp handler serving `library_search` ({ query, limit? }) over these passages. */
export function libraryMcp(passages: LibraryPassage[]): LibraryMcp {
  const state: LibraryMcp = {
    calls: [],
    authorizations: [],
    mode: "structured",
    listed: true,
    handler: async (request) => {
      const authorization = request.headers.get("authorization");
      state.authorizations.push(authorization);
      const server = new Server({ name: "test-instance-library", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: state.listed
          ? [
              {
                name: "library_search",
                description: "Searches the documents of the account's library.",
                inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query"] },
                annotations: { readOnlyHint: true },
              },
            ]
          : [{ name: "echo", description: "Says the text back.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (call, extra): Promise<CallToolResult> => {
        const args = call.params.arguments ?? {};
        state.calls.push({ args, authorization });
        const limit = typeof args.limit === "number" ? args.limit : passages.length;
        const found = { passages: passages.slice(0, limit) };
        switch (state.mode) {
          case "structured":
            return { content: [{ type: "text", text: `${found.passages.length} passages` }], structuredContent: found };
          case "json-text":
            return { content: [{ type: "text", text: JSON.stringify(found) }] };
          case "malformed":
            return { content: [{ type: "text", text: JSON.stringify({ answer: 42 }) }] };
          case "error":
            return { content: [{ type: "text", text: "the library index is rebuilding" }], isError: true };
          case "hang":
            await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
            return { content: [{ type: "text", text: "cancelled" }] };
        }
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      return transport.handleRequest(request);
    },
  };
  return state;
}
