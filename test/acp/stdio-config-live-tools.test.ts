/**
 * What config.yaml says of the tools, edited while `serve --stdio` runs its own engine, holds from
 * the next tool call: a path added to `protected` is asked for (and, refused, not read), a variable
 * added to `tools.env_passthrough` reaches bash, a host added to `fetch.allow_private` is fetched.
 */
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";

let a: StdioAgent | null = null;
afterEach(async () => {
  await a?.close();
  a = null;
});

/** One turn: the tool call, then a text answer; what the tool's result told the model. */
async function toolResult(agent: StdioAgent, sessionId: string, name: string, args: object): Promise<string> {
  agent.model.push(step({ toolCalls: [{ name, arguments: args }] }), step({ text: "ok" }));
  const before = agent.model.requests.length;
  await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `use ${name}` }] });
  // The step that carried the tool's result (a session's title is asked for by a request of its own, which may come last).
  const withResult = agent.model.requests
    .slice(before)
    .map((request) => (request.body.messages ?? []) as { role: string; content?: unknown }[])
    .filter((messages) => messages.some((m) => m.role === "tool"))
    .at(-1);
  return JSON.stringify(withResult?.filter((m) => m.role === "tool").at(-1)?.content ?? "");
}

async function session(agent: StdioAgent): Promise<string> {
  await agent.agent.request("initialize", initializeParams);
  return ((await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] })) as { sessionId: string }).sessionId;
}

test("a path added to protected under serve --stdio is asked for at the next read, and refused, not read", async () => {
  a = await startStdioAgent();
  a.onPermission = () => ({ outcome: { outcome: "cancelled" } });
  const sessionId = await session(a);
  writeFileSync(join(a.project, "plans.txt"), "PLAN-CONTENT-42\n");
  expect(await toolResult(a, sessionId, "read", { path: "plans.txt" })).toContain("PLAN-CONTENT-42");
  expect(a.permissionRequests).toHaveLength(0);

  appendFileSync(join(a.box.configDir, "config.yaml"), "protected: [plans.txt]\n");
  expect(await toolResult(a, sessionId, "read", { path: "plans.txt" })).not.toContain("PLAN-CONTENT-42");
  expect(a.permissionRequests).toHaveLength(1);
}, 60_000);

test("a variable added to tools.env_passthrough under serve --stdio reaches the next bash call", async () => {
  a = await startStdioAgent({ env: { DEPLOY_API_TOKEN: "tok-6d1f9a" } });
  const sessionId = await session(a);
  const echo = { command: "echo token=$DEPLOY_API_TOKEN", description: "print the token" };
  const before = await toolResult(a, sessionId, "bash", echo);
  expect(before).toContain("token=");
  expect(before).not.toContain("tok-6d1f9a");

  appendFileSync(join(a.box.configDir, "config.yaml"), "tools:\n  env_passthrough: [DEPLOY_API_TOKEN]\n");
  expect(await toolResult(a, sessionId, "bash", echo)).toContain("token=tok-6d1f9a");
}, 60_000);

test("a host added to fetch.allow_private under serve --stdio is fetched at the next call", async () => {
  a = await startStdioAgent();
  const sessionId = await session(a);
  const url = `${a.model.url.replace(/\/v1\/?$/, "")}/v1/models`;
  expect(await toolResult(a, sessionId, "fetch", { url })).toContain("fetch.allow_private");

  appendFileSync(join(a.box.configDir, "config.yaml"), 'fetch:\n  allow_private: ["127.0.0.1"]\n');
  expect(await toolResult(a, sessionId, "fetch", { url })).toContain("test-model");
}, 60_000);
