import { afterAll, afterEach, expect, test } from "bun:test";
import { McpHub } from "../../src/mcp/hub.ts";
import { MAX_RESULT_CHARS, type Tool } from "../../src/tools/tool.ts";
import { cleanupTempDirs, makeContext } from "../tools/context.ts";
import { processesTagged, stdioServer } from "./servers.ts";

const hubs: McpHub[] = [];
const tags: string[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});
afterAll(() => {
  cleanupTempDirs();
  for (const tag of tags) expect(processesTagged(tag)).toEqual([]);
});

async function startHub(...switches: string[]) {
  const notices: string[] = [];
  const hub = new McpHub({ onNotice: (m) => void notices.push(m) });
  hubs.push(hub);
  const tag = crypto.randomUUID();
  tags.push(tag);
  const problems = await hub.start([stdioServer("t", tag, ...switches)], new AbortController().signal);
  return { hub, problems, notices };
}

function tool(hub: McpHub, name: string): Tool {
  const found = hub.tools().find((t) => t.name === name);
  if (!found) throw new Error(`no ${name} among ${hub.tools().map((t) => t.name).join(", ")}`);
  return found;
}

test("a tool whose inputSchema is not an object is left out with a notice naming it and why; the server's other tools are offered", async () => {
  const { hub, problems, notices } = await startHub("--bad-tool");
  expect(problems).toEqual([]);
  const names = hub.tools().map((t) => t.name);
  expect(names).toContain("mcp__t__echo");
  expect(names).not.toContain("mcp__t__shapeless");
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain('MCP server "t"');
  expect(notices[0]).toContain('"shapeless"');
  expect(notices[0]).toContain("inputSchema.type");
  expect(notices[0]).toContain("its other tools are offered");
  const { ctx } = makeContext();
  expect(await tool(hub, "mcp__t__echo").execute({ text: "hi" }, ctx)).toEqual({ output: "echo: hi" });
});

test("a tool list that cannot be read is said as such, never as the exit lembas's own stop caused", async () => {
  const { hub, problems } = await startHub("--bad-list");
  expect(hub.tools()).toEqual([]);
  expect(problems).toHaveLength(1);
  const message = problems[0]?.message ?? "";
  expect(message).toContain('MCP server "t" did not start: its tool list could not be read: tools:');
  expect(message).not.toContain("SIGTERM");
  expect(message).not.toContain("before it answered");
});

test("structured content past the bound of a result is left out of what the front ends get, with a sentence; a small one is kept", async () => {
  const { hub } = await startHub();
  const { ctx } = makeContext();
  const big = await tool(hub, "mcp__t__huge").execute({ chars: 2_000_000, structured: true }, ctx);
  expect(big.output).toBe("a small summary");
  expect(big.meta?.structuredContent).toBeUndefined();
  expect(String(big.meta?.structuredContentLeftOut)).toContain(`over the ${MAX_RESULT_CHARS}`);
  expect(JSON.stringify(big).length).toBeLessThan(MAX_RESULT_CHARS);

  const small = await tool(hub, "mcp__t__huge").execute({ chars: 100, structured: true }, ctx);
  expect(small.meta).toEqual({ structuredContent: { blob: "y".repeat(100) } });
  const structured = await tool(hub, "mcp__t__structured").execute({}, ctx);
  expect(structured.meta).toEqual({ structuredContent: { temperature: 21, unit: "C" } });
});
