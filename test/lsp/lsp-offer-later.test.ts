/** The lsp tool in a long-lived process: a project's files or servers that appear later are seen. */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { type ChatRequest, startModel } from "../support/model.ts";
import { trustIn } from "../support/trust.ts";

const FAKE = resolve(import.meta.dir, "../support/fake-lsp.ts");
let agent: StdioAgent | null = null;
afterEach(async () => {
  await agent?.close();
  agent = null;
});

const offersLsp = (body: ChatRequest | undefined) => (body?.tools ?? []).some((t) => (t as { function: { name: string } }).function.name === "lsp");

test("a file a server handles that appears between two turns of one serve --stdio is offered the lsp tool from the next turn, in a new session too", async () => {
  const model = await startModel();
  const config = `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nlsp:\n  fake:\n    command: ${process.execPath}\n    args: ${JSON.stringify([FAKE, "ok"])}\n    extensions: [fake]\n`;
  agent = await startStdioAgent({ model, config });
  const a = agent;
  trustIn(a.box, a.project);
  writeFileSync(join(a.project, "notes.txt"), "nothing for a server\n");
  await a.agent.request("initialize", initializeParams);
  const session = async () => (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })).sessionId;
  const prompt = (sessionId: string) => a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const first = await session();
  model.push(step({ text: "one" }));
  await prompt(first);
  writeFileSync(join(a.project, "app.fake"), "function add()\n");
  model.push(step({ text: "two" }));
  await prompt(first);
  model.push(step({ text: "three" }));
  await prompt(await session());
  expect(model.requests.filter((r) => isStep(r.body)).map((r) => offersLsp(r.body))).toEqual([false, true, true]);
}, 60_000);
