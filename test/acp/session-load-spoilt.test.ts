/**
 * session/load of a session one of whose stored rows no longer reads (its body not JSON: a disk
 * error, a hand edit, an older version's bug) replays the rest of its history, as it does past a
 * row of the wrong shape, and the session goes on: it is not an internal error.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { startModel } from "../support/model.ts";
import { sandbox } from "../support/run.ts";
import { NOT_JSON, spoilRow, spoilTurnAnswers, WRONG_SHAPE } from "../support/spoilt-rows.ts";

const agents: StdioAgent[] = [];
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const texts = (kind: string, updates: acp.SessionNotification[]) =>
  updates.filter((u) => u.update.sessionUpdate === kind).map((u) => (u.update as { content: { text: string } }).content.text);

test("session/load replays the rows around one that is not JSON (and one of the wrong shape), then a prompt goes on", async () => {
  const model = await startModel();
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n`);
  cleanups.push(() => model.close(), () => box.cleanup());
  const device = { device: { box, project }, model };

  const a = await startStdioAgent(device);
  agents.push(a);
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = await a.agent.request("session/new", { cwd: project, mcpServers: [] });
  model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.md", content: "a\n" } }] }), step({ text: "Wrote a.md." }));
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write a.md" }] })).stopReason).toBe("end_turn");
  model.push(step({ toolCalls: [{ name: "write", arguments: { path: "b.md", content: "b\n" } }] }), step({ text: "Wrote b.md." }));
  expect((await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write b.md" }] })).stopReason).toBe("end_turn");
  agents.splice(agents.indexOf(a), 1);
  await a.close();

  spoilRow(box.stateDir, sessionId, "tool", 0, NOT_JSON);
  spoilRow(box.stateDir, sessionId, "tool", 1, WRONG_SHAPE);
  spoilTurnAnswers(box.stateDir, sessionId, NOT_JSON);

  const b = await startStdioAgent(device);
  agents.push(b);
  await b.agent.request("initialize", initializeParams);
  const answer = await b.agent.request("session/load", { sessionId, cwd: project, mcpServers: [] });
  expect(answer.modes?.currentModeId).toBeString();
  const replay = b.updates.filter((u) => u.sessionId === sessionId);
  expect(texts("user_message_chunk", replay)).toEqual(["write a.md", "write b.md"]);
  expect(texts("agent_message_chunk", replay)).toEqual(["Wrote a.md.", "Wrote b.md."]);

  model.push(step({ text: "third answer" }));
  expect((await b.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now?" }] })).stopReason).toBe("end_turn");
  const sent = JSON.stringify(model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
  expect(sent).toContain("write a.md");
  expect(sent).toContain("Wrote b.md.");
  // Nothing but protocol messages on stdout.
  for (const line of b.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
}, 60_000);
