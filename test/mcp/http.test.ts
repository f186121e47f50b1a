import { afterAll, afterEach, expect, test } from "bun:test";
import { McpHub } from "../../src/mcp/hub.ts";
import type { McpServerSpec } from "../../src/mcp/spec.ts";
import { cleanupTempDirs, makeContext } from "../tools/context.ts";
import { mcpHttpHandler } from "../support/mcp-server.ts";

const TOKEN = "device-token-0123456789";
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: mcpHttpHandler({ token: TOKEN }) });
const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});
afterAll(async () => {
  cleanupTempDirs();
  await server.stop(true);
});

function instance(token: string): McpServerSpec {
  return {
    name: "instance",
    source: "instance",
    transport: { type: "http", url: `http://127.0.0.1:${server.port}/mcp`, headers: { Authorization: `Bearer ${token}` } },
    secretHeaders: ["Authorization"],
  };
}

test("over streamable HTTP with the right token: the tools, a call and its result", async () => {
  const hub = new McpHub();
  hubs.push(hub);
  expect(await hub.start([instance(TOKEN)], new AbortController().signal)).toEqual([]);
  const names = hub.tools().map((t) => t.name);
  expect(names).toContain("mcp__instance__echo");
  expect(names).not.toContain("mcp__instance__crash");
  const echo = hub.tools().find((t) => t.name === "mcp__instance__echo")!;
  const { ctx } = makeContext();
  expect(await echo.execute({ text: "over http" }, ctx)).toEqual({ output: "echo: over http" });
  const note = hub.tools().find((t) => t.name === "mcp__instance__read_note")!;
  expect(note.permission).toBe("read");
});

test("with the wrong token the server does not start, and the sentence says why without the token", async () => {
  const hub = new McpHub({ startMs: 3_000 });
  hubs.push(hub);
  const wrong = "wrong-token-9876543210";
  const problems = await hub.start([instance(wrong)], new AbortController().signal);
  expect(problems).toHaveLength(1);
  expect(problems[0]?.message).toStartWith('MCP server "instance" did not start: ');
  expect(problems[0]?.message).toContain("401");
  expect(problems[0]?.message).not.toContain(wrong);
  expect(hub.tools()).toEqual([]);
});
