/**
 * `serve --stdio` answers initialize as it reads it, before zod, the ACP SDK and the engine load
 * (src/acp/early-initialize.ts), and the SDK still gets the request and answers it the same way:
 * the answer the editor got first is byte for byte the one the SDK gives to the same request sent
 * again, with the process's own engine and through a running service. A request the SDK's schema
 * might refuse is left to it, and refused as before.
 */
import { afterEach, expect, test } from "bun:test";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";

let a: StdioAgent | null = null;
let d: Device | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
  await d?.close();
  d = null;
});

// Ids of our own, apart from those of the SDK's client side in the test.
const request = (id: string, params: unknown, method = "initialize") => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const answerTo = (agent: StdioAgent, id: string) => agent.waitForLine((line) => (JSON.parse(line) as { id?: unknown }).id === id, 15_000);
/** The answer's line with its id taken out: the same answer to another request. */
const withoutId = (line: string, id: string) => line.replace(`"id":"${id}",`, "");

async function sameAnswerTwice(agent: StdioAgent): Promise<void> {
  const params = { ...initializeParams, clientInfo: { name: "zed", version: "1" } };
  agent.sendRaw(request("i1", params));
  const first = await answerTo(agent, "i1");
  // The connection is initialized for the SDK as well: session/new is taken.
  agent.sendRaw(request("n1", { cwd: agent.project, mcpServers: [] }, "session/new"));
  expect(JSON.parse(await answerTo(agent, "n1"))).toMatchObject({ result: { sessionId: expect.any(String) } });
  // The SDK answers this one itself.
  agent.sendRaw(request("i2", params));
  const second = await answerTo(agent, "i2");
  expect(withoutId(first, "i1")).toBe(withoutId(second, "i2"));
  expect(JSON.parse(first)).toMatchObject({ result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
  // Each request answered once: the SDK's answer to the first one was not sent again.
  expect(agent.stdoutLines.filter((line) => (JSON.parse(line) as { id?: unknown }).id === "i1")).toHaveLength(1);
}

test("with its own engine, the early initialize answer is the SDK's own, sent once, and the connection is initialized", async () => {
  a = await startStdioAgent({ env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  await sameAnswerTwice(a);
});

test("through a running service, which answers initialize itself, the answer is the same, sent once", async () => {
  d = await startDevice();
  await d.serve();
  a = await startStdioAgent({ device: d, model: d.model });
  await sameAnswerTwice(a);
  expect(d.log()).toContain("an editor's serve --stdio connected");
});

test("an initialize the SDK's schema refuses is refused by the SDK, with its sentence, as before", async () => {
  a = await startStdioAgent({ env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  a.sendRaw(request("i1", { protocolVersion: "one" }));
  expect(JSON.parse(await answerTo(a, "i1"))).toMatchObject({ error: { code: -32602, message: "Invalid params: protocolVersion: Invalid input: expected number, received string" } });
  a.sendRaw(request("i2", { protocolVersion: 70_000 }));
  expect(JSON.parse(await answerTo(a, "i2"))).toMatchObject({ error: { code: -32602 } });
  // The connection is not initialized by a refused one.
  a.sendRaw(request("n1", { cwd: a.project, mcpServers: [] }, "session/new"));
  expect(JSON.parse(await answerTo(a, "n1"))).toMatchObject({ error: { code: -32600 } });
});

test("a bad config.yaml is said as before, after initialize was answered: the same sentence on stderr, exit 2, only the answer on stdout", async () => {
  a = await startStdioAgent({ config: "mode: fast\n", env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  a.sendRaw(request("i1", initializeParams));
  expect(await a.proc.exited).toBe(2);
  expect(a.stdoutLines.map((line) => (JSON.parse(line) as { id?: unknown }).id)).toEqual(["i1"]);
  expect(a.stderr().trim().split("\n")).toHaveLength(1);
  expect(a.stderr()).toContain("config.yaml");
  expect(a.stderr()).toContain("mode:");
});
