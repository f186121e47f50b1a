/**
 * An editor that closes the connection while it is being asked to approve a call: nobody can answer
 * any more, so `serve --stdio` takes the approval as unanswered, ends the turn and exits. Before, the
 * turn waited on the answer, the server's close waited on the turn, and the process never exited.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";

let a: StdioAgent | null = null;
afterEach(() => a?.close());

test("the editor leaves while an approval is asked of it: serve --stdio exits, and the call never ran", async () => {
  a = await startStdioAgent();
  const agent = a;
  agent.onPermission = () => new Promise(() => {});
  agent.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "never" }));
  await agent.agent.request("initialize", initializeParams);
  const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
  void agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make it" }] }).catch(() => {});
  await agent.waitForLine((l) => l.includes('"session/request_permission"'));
  agent.proc.stdin.end();
  expect(await agent.proc.exited).toBe(0);
  expect(existsSync(join(agent.project, "made.txt"))).toBe(false);
}, 20_000);
