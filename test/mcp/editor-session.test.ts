import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { startModel } from "../support/model.ts";
import { ROOT, runLembas, sandbox } from "../support/run.ts";
import { processesTagged, serversTagged } from "./processes.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");

let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
});

/** The test server as an editor's session/new names it, tagged so its processes can be found. */
const editorServer = (name: string, tag: string) => ({ name, command: process.execPath, args: [SERVER, `--tag=${tag}`], env: [] });

async function newSession(agent: StdioAgent, mode: string, tag: string) {
  await agent.agent.request("initialize", initializeParams);
  return (await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [editorServer("notes", tag)], _meta: { mode } })) as { sessionId: string };
}

const prompt = (agent: StdioAgent, sessionId: string, text = "go") => agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

const updatesOf = (agent: StdioAgent, callId: string) =>
  agent.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.toolCallId === callId);

test("an editor's stdio server: its tools in the model's list, a call's result back to the model, the client told of it with the server in the title", async () => {
  a = await startStdioAgent();
  const tag = `editor-${crypto.randomUUID()}`;
  a.model.push(step({ toolCalls: [{ id: "c1", name: "mcp__notes__echo", arguments: { text: "hello" } }] }), step({ text: "done" }));
  const { sessionId } = await newSession(a, "edit", tag);
  await prompt(a, sessionId);
  const [first, second] = a.model.requests.filter((r) => r.body.tools);
  const names = (first?.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
  // After the built-ins, in the server's order.
  expect(names.filter((n) => n.startsWith("mcp__")).slice(0, 3)).toEqual(["mcp__notes__echo", "mcp__notes__read_note", "mcp__notes__lookup"]);
  expect(names.indexOf("bash")).toBeLessThan(names.indexOf("mcp__notes__echo"));
  const echo = (first?.body.tools ?? []).find((t) => (t as { function: { name: string } }).function.name === "mcp__notes__echo") as { function: { parameters: unknown } };
  expect(echo.function.parameters).toEqual({ type: "object", properties: { text: { type: "string", description: "What to say" } }, required: ["text"] });
  // The same list at the second step.
  expect(second?.body.tools).toEqual(first?.body.tools);
  const toolMessage = (second?.body.messages ?? []).find((m) => m.role === "tool") as { content: string } | undefined;
  expect(toolMessage?.content).toContain("echo: hello");
  // An exec tool asks in edit mode, with the server in the card's title.
  expect(a.permissionRequests[0]?.toolCall.title).toBe('notes: echo {"text":"hello"}');
  const updates = updatesOf(a, "c1");
  expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", title: "notes: echo" });
  expect(updates.filter((u) => u.status === "in_progress").at(-1)).toMatchObject({ title: 'notes: echo {"text":"hello"}', rawInput: { text: "hello" } });
  expect(updates.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
  expect(serversTagged(tag).length).toBe(1);
  await a.close();
  a = null;
  expect(processesTagged(tag)).toEqual([]);
}, 30_000);

test("a read-only tool runs in plan mode; an exec one asks in edit mode, and allowed for the session it asks no more", async () => {
  a = await startStdioAgent();
  const tag = `modes-${crypto.randomUUID()}`;
  a.model.push(
    step({ toolCalls: [{ id: "r1", name: "mcp__notes__read_note", arguments: { name: "x" } }] }),
    step({ toolCalls: [{ id: "e0", name: "mcp__notes__echo", arguments: { text: "no" } }] }),
    step({ text: "planned" }),
  );
  const { sessionId } = await newSession(a, "plan", tag);
  await prompt(a, sessionId);
  expect(a.permissionRequests).toEqual([]);
  expect(updatesOf(a, "r1").at(-1)).toMatchObject({ status: "completed" });
  // plan mode refuses the exec one, as it refuses a command.
  expect(updatesOf(a, "e0").at(-1)).toMatchObject({ status: "failed" });

  await a.agent.request("session/set_mode", { sessionId, modeId: "edit" });
  a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "session" } });
  a.model.push(
    step({ toolCalls: [{ id: "e1", name: "mcp__notes__echo", arguments: { text: "one" } }] }),
    step({ toolCalls: [{ id: "e2", name: "mcp__notes__echo", arguments: { text: "two" } }] }),
    step({ text: "ok" }),
  );
  await prompt(a, sessionId);
  expect(a.permissionRequests.length).toBe(1);
  const options = a.permissionRequests[0]?.options.map((o) => o.name);
  expect(options).toContain("Always allow mcp__notes__echo calls, for this session");
  expect(updatesOf(a, "e2").at(-1)).toMatchObject({ status: "completed" });
  const last = (a.model.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").at(-1) as { content: string } | undefined;
  expect(last?.content).toContain("echo: two");
}, 30_000);

test("an MCP tool's `command` argument is not taken for a command line", async () => {
  a = await startStdioAgent();
  const tag = `command-${crypto.randomUUID()}`;
  // echo takes text; a `command` beside it is the server's business, and the card shows no shell line.
  a.model.push(step({ toolCalls: [{ id: "k1", name: "mcp__notes__echo", arguments: { text: "x", command: "rm -rf /" } }] }), step({ text: "ok" }));
  const { sessionId } = await newSession(a, "edit", tag);
  await prompt(a, sessionId);
  const card = a.permissionRequests[0];
  expect(card?._meta).toMatchObject({ lembas: { reason: "edit mode asks before running commands", always: "mcp__notes__echo calls, for this session" } });
  expect(JSON.stringify(card?.toolCall.content ?? [])).not.toContain("```sh");
}, 30_000);

test("a trusted project's .mcp.json is asked about as an approval card showing what it runs (names, never values); allowed, it is remembered", async () => {
  a = await startStdioAgent();
  const tag = `card-${crypto.randomUUID()}`;
  const secret = "value-never-shown";
  writeFileSync(
    join(a.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [SERVER, `--tag=${tag}`, "${PROJ_FLAG:-x}"], env: { API_KEY: secret } } } }),
  );
  expect((await runLembas(a.box, ["trust"], { cwd: a.project })).code).toBe(0);
  a.model.push(step({ toolCalls: [{ id: "p1", name: "mcp__proj__read_note", arguments: { name: "a" } }] }), step({ text: "ok" }));
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
  await prompt(a, sessionId);
  const card = a.permissionRequests[0];
  const path = join(a.project, ".mcp.json");
  expect(card?.toolCall.title).toBe(`Use the MCP servers of ${path}?`);
  const text = (card?.toolCall.content?.[0] as { content: { text: string } } | undefined)?.content.text ?? "";
  expect(text).toContain(`proj: ${process.execPath} ${SERVER} --tag=${tag} '\${PROJ_FLAG:-x}'`);
  expect(text).toContain("sets API_KEY");
  expect(text).toContain("reads ${PROJ_FLAG}");
  expect(JSON.stringify(card)).not.toContain(secret);
  expect(card?.options.map((o) => o.optionId)).toEqual(["once", "deny"]);
  expect(updatesOf(a, "p1").at(-1)).toMatchObject({ status: "completed" });
  // The next session asks nothing: the yes is kept with the file's hash.
  a.model.push(step({ text: "again" }));
  const next = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
  const before = a.model.requests.length;
  await prompt(a, next.sessionId);
  expect(a.permissionRequests.length).toBe(1);
  // The step's request, not a side call (a title) that may come after it.
  const stepRequest = a.model.requests.slice(before).filter((r) => r.body.tools).at(-1);
  expect(stepRequest?.body.tools?.some((t) => (t as { function: { name: string } }).function.name === "mcp__proj__read_note")).toBe(true);
}, 30_000);

test("session/resume takes the editor's mcpServers again: a stored session's next prompt is offered their tools; a malformed one is -32602", async () => {
  const model = await startModel();
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  const tag = `resume-${crypto.randomUUID()}`;
  try {
    a = await startStdioAgent({ device: { box, project }, model });
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = (await a.agent.request("session/new", { cwd: project, mcpServers: [] })) as { sessionId: string };
    a.model.push(step({ text: "first" }));
    await prompt(a, sessionId);
    await a.close();

    a = await startStdioAgent({ device: { box, project }, model });
    await a.agent.request("initialize", initializeParams);
    const bad = await a.agent.request("session/resume", { sessionId, cwd: project, mcpServers: [{ name: "x", args: [], env: [] }] }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: -32602, message: expect.stringContaining("mcpServers[0] (\"x\"): command is missing") });
    await a.agent.request("session/resume", { sessionId, cwd: project, mcpServers: [editorServer("notes", tag)] });
    a.model.push(step({ toolCalls: [{ id: "r1", name: "mcp__notes__read_note", arguments: { name: "n" } }] }), step({ text: "done" }));
    await prompt(a, sessionId);
    const steps = a.model.requests.filter((r) => r.body.tools);
    const names = (steps.at(-2)?.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
    expect(names).toContain("mcp__notes__read_note");
    expect(updatesOf(a, "r1").at(-1)).toMatchObject({ status: "completed" });
    const toolMessage = (steps.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").at(-1) as { content: string } | undefined;
    expect(toolMessage?.content).toContain("note n: buy milk");
    await a.close();
    a = null;
    expect(processesTagged(tag)).toEqual([]);
  } finally {
    await model.close();
    box.cleanup();
  }
}, 30_000);

test("a result's large structured content is left out of the client's rawOutput, with a sentence; a small one is given as it is", async () => {
  a = await startStdioAgent();
  const tag = `structured-${crypto.randomUUID()}`;
  a.model.push(
    step({ toolCalls: [{ id: "big", name: "mcp__notes__huge", arguments: { chars: 2_000_000, structured: true } }] }),
    step({ toolCalls: [{ id: "small", name: "mcp__notes__structured", arguments: {} }] }),
    step({ text: "done" }),
  );
  const { sessionId } = await newSession(a, "auto", tag);
  await prompt(a, sessionId);
  const big = updatesOf(a, "big").at(-1)?.rawOutput as Record<string, unknown> | undefined;
  // Measured, not printed: a failure must not dump megabytes.
  expect(JSON.stringify(big ?? null).length).toBeLessThan(2_000);
  expect(big?.output).toBe("a small summary");
  expect(String(big?.structuredContentLeftOut)).toContain("left out");
  expect(updatesOf(a, "small").at(-1)?.rawOutput).toMatchObject({ structuredContent: { temperature: 21, unit: "C" } });
}, 30_000);
