/** `lembas mcp list`'s lines (and /doctor's, which share the words) read right for one tool. */
import { expect, test } from "bun:test";
import { mcpListText, startsWith } from "../../src/mcp/list-text.ts";
import type { McpListing } from "../../src/mcp/listing.ts";

test("a server with one tool starts with “1 tool”, not “1 tools”; more are counted as tools", () => {
  const listing: McpListing = {
    servers: [{ name: "one", source: "config", what: "one-server", state: "usable", spec: { name: "one", source: "config", transport: { type: "stdio", command: "one-server", args: [], env: {} } }, note: null }],
    project: { state: "none", specs: [], needsApproval: null, problems: [] },
    problems: [],
  };
  const lines = mcpListText(listing, new Map([["one", { starts: true, tools: ["echo"] }]]));
  expect(lines.join("\n")).toContain("starts, 1 tool: echo");
  expect(startsWith(2)).toBe("starts, 2 tools");
});
