import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { LINK_SERVERS_REFUSAL } from "../../src/mcp/from-editor.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { type Device, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { mcpHttpHandler } from "../support/mcp-server.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { rpcError } from "../support/rpc.ts";

const TOKEN = "editor-token-0123456789";
/** The tests' MCP server over streamable HTTP, taking only this bearer token. */
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: mcpHttpHandler({ token: TOKEN }) });
afterAll(() => server.stop(true));

let a: StdioAgent | null = null;
/** An agent whose sandbox a later one used: closed after it. */
let before: StdioAgent | null = null;
let model: ScriptedModel | null = null;
let d: Device | null = null;
afterEach(async () => {
  await a?.close();
  await before?.close();
  await model?.close();
  await d?.close();
  a = null;
  before = null;
  model = null;
  d = null;
});

/** The server as an editor's session/new names it: ACP's McpServerHttp, the token in its headers. */
const httpEntry = (name: string, token = TOKEN) => ({ type: "http", name, url: `http://127.0.0.1:${server.port}/mcp`, headers: [{ name: "Authorization", value: `Bearer ${token}` }] });

const prompt = (agent: StdioAgent, sessionId: string) => agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });

/** What the model was told of the call it made: the tool message of its next step. */
const toolAnswer = (m: ScriptedModel) => JSON.stringify(m.requests.filter((r) => r.body.tools).at(-1)?.body.messages?.findLast((msg) => msg.role === "tool")?.content);

const toolNames = (m: ScriptedModel) => (m.requests.find((r) => r.body.tools)?.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

describe("an editor's MCP servers over HTTP", () => {
  test("initialize on stdio says mcpCapabilities http true, sse false", async () => {
    a = await startStdioAgent();
    const result = await a.agent.request("initialize", initializeParams);
    expect(result).toMatchObject({ agentCapabilities: { mcpCapabilities: { http: true, sse: false } } });
  });

  test("an http entry of session/new is started with its headers: the model calls its tool and gets the server's answer", async () => {
    a = await startStdioAgent();
    a.model.push(step({ toolCalls: [{ id: "h1", name: "mcp__docs__echo", arguments: { text: "over http" } }] }), step({ text: "done" }));
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [httpEntry("docs")] as never, _meta: { mode: "edit" } });
    await prompt(a, sessionId);
    expect(toolNames(a.model)).toEqual(expect.arrayContaining(["mcp__docs__echo", "mcp__docs__read_note"]));
    expect(toolAnswer(a.model)).toContain("echo: over http");
    const last = a.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.toolCallId === "h1").at(-1);
    expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
  });

  test("an http entry given again at session/resume is started for the session opened from the store", async () => {
    model = await startModel();
    const first = await startStdioAgent({ model });
    before = first;
    await first.agent.request("initialize", initializeParams);
    const { sessionId } = await first.agent.request("session/new", { cwd: first.project, mcpServers: [] });
    const device = { box: first.box, project: first.project };
    // The first process quits (end of its input) and lets go of the session; its sandbox stays for the second.
    first.proc.stdin.end();
    await first.proc.exited;
    a = await startStdioAgent({ model, device });
    model.push(step({ toolCalls: [{ id: "h2", name: "mcp__docs__echo", arguments: { text: "resumed" } }] }), step({ text: "done" }));
    await a.agent.request("initialize", initializeParams);
    await a.agent.request("session/resume", { sessionId, cwd: a.project, mcpServers: [httpEntry("docs")] as never });
    await a.agent.request("session/set_mode", { sessionId, modeId: "edit" });
    await prompt(a, sessionId);
    expect(toolAnswer(model)).toContain("echo: resumed");
  });

  test("an sse entry is refused with a sentence that says what to give instead", async () => {
    a = await startStdioAgent();
    await a.agent.request("initialize", initializeParams);
    const sse = { type: "sse", name: "old", url: `http://127.0.0.1:${server.port}/sse`, headers: [] };
    const error = await rpcError(a.agent.request("session/new", { cwd: a.project, mcpServers: [sse] as never }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('mcpServers[0] ("old") is an sse server, and lembas does not speak MCP over SSE');
    expect(error.message).toContain('give the server\'s streamable HTTP url as type "http"');
  });
});

describe("the link", () => {
  test("initialize stays as the spec shows it, and an http entry of session/new is refused as every server is", async () => {
    d = await startDevice();
    const link = await d.serve({ init: null });
    const init = (await link.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } })) as { agentCapabilities: unknown };
    expect(init.agentCapabilities).toEqual({
      loadSession: false,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: false, sse: false },
    });
    const refused = await rpcError(link.request("session/new", { cwd: d.project, mcpServers: [httpEntry("docs")] }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining(LINK_SERVERS_REFUSAL) });
  });
});
