/**
 * How `serve --stdio` reads what a client sends back: a malformed answer to one of the agent's own
 * requests settles that request (and is never answered, as no response is), and `params: null` is
 * a request without params, as the ACP SDK read it.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";

let a: StdioAgent;
beforeEach(async () => {
  a = await startStdioAgent();
});
afterEach(() => a.close());

const idOf = (line: string) => (JSON.parse(line) as { id: number }).id;

test("a malformed answer to an approval is a denial: the turn ends, and the answer is not answered", async () => {
  a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
  // The SDK's client never answers: the raw lines below are the client's answers.
  a.onPermission = () => new Promise(() => {});
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
  const prompt = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make it" }] });
  const asked = idOf(await a.waitForLine((l) => l.includes('"session/request_permission"')));
  const before = a.stdoutLines.length;
  // Neither a result nor an error; then the same without the envelope's version.
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: asked }));
  const result = await prompt;
  expect(result.stopReason).toBe("end_turn");
  expect(existsSync(join(a.project, "made.txt"))).toBe(false);
  a.sendRaw(JSON.stringify({ id: asked, result: { outcome: { outcome: "selected", optionId: "once" } } }));
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", result: {} }));
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: true, error: { code: 1, message: "x" } }));
  // A request after them is answered; nothing was said to any of the answers before it.
  const listed = await a.agent.request("session/list", {});
  expect(listed.sessions.length).toBeGreaterThan(0);
  const errors = a.stdoutLines.slice(before).filter((l) => l.includes('"error"'));
  expect(errors).toEqual([]);
});

test("params: null is a request without params, answered as one", async () => {
  await a.agent.request("initialize", initializeParams);
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "listed", method: "session/list", params: null }));
  const line = JSON.parse(await a.waitForLine((l) => l.includes('"id":"listed"')));
  expect(line).toEqual({ jsonrpc: "2.0", id: "listed", result: { sessions: [] } });
  // A notification's null params reach its check as they came: refused there, and never answered.
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: null }));
  a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "after", method: "session/list" }));
  await a.waitForLine((l) => l.includes('"id":"after"'));
  expect(a.stdoutLines.filter((l) => l.includes('"error"'))).toEqual([]);
});
