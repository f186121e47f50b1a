import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FixtureRoute, RecordedBody } from "../support/fixture-route.ts";
import { messagesError, messagesRoute } from "../support/messages-server.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, projectSandbox, runLembas } from "../support/run.ts";
import { reply, textBlock, thinkingBlock, toolBlock } from "../model/fixtures/messages.ts";

// A Messages tool loop with thinking on that does not end the plain way (compacted in its middle,
// cut by an error): what lembas sends next must keep Anthropic's rule that the final assistant
// message with tool_use starts with its thinking (the scripted route refuses it otherwise, as the API does).
let box: ProjectSandbox;
let model: ScriptedModel;
let route: FixtureRoute;
const config = (effort: string) =>
  writeFileSync(join(box.configDir, "config.yaml"), `model: claude/claude-sonnet-4-5\neffort: ${effort}\nconnections:\n  claude:\n    base_url: ${model.url}\n    api: messages\n    api_key: sk-ant-test\n`);
beforeEach(async () => {
  route = messagesRoute([], { body: reply(textBlock(0, "A title")), times: Infinity });
  model = await startModel({ routes: [route] });
  box = projectSandbox(model.url);
  config("medium");
  writeFileSync(join(box.project, "a.txt"), "APPLE-MARKER\n");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

type Message = { role: string; content: Record<string, unknown>[] };
const isStep = (body: RecordedBody) => Array.isArray(body.tools) && body.tools.length > 0;
const steps = () => route.requests.filter((r) => isStep(r.body)).map((r) => r.body);
const run = (args: string[]) => runLembas(box, ["run", "--format", "json", ...args], { cwd: box.project });
const readCall = (signature: string) => reply(thinkingBlock(0, ["I will read a.txt."], signature) + toolBlock(1, "toolu_01R", "read", '{"path":"a.txt"}'), "tool_use");
const lastAssistant = (body: RecordedBody | undefined) => (body?.messages as Message[]).findLast((m) => m.role === "assistant");

describe("a Messages tool loop with thinking, not ended the plain way", () => {
  test("compacted in the middle of the loop: the retried step's assistant message starts with its thinking", async () => {
    const summary = (body: RecordedBody) => !isStep(body) && JSON.stringify(body.system ?? "").includes("You summarise a coding session");
    route.push(
      { match: isStep, body: readCall("sig-1") },
      { match: isStep, status: 400, error: messagesError("invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum") },
      { match: summary, body: reply(textBlock(0, "SUMMARY: reading a.txt.")) },
      { match: isStep, body: reply(textBlock(0, "It says APPLE.")) },
    );
    const ran = await run(["read a.txt"]);
    expect(ran.stderr).not.toContain("    at ");
    expect(ran.stdout).toContain(`"type":"compacted"`);
    expect(ran.code).toBe(0);
    const retried = steps().at(-1);
    expect(JSON.stringify(retried?.messages)).toContain("SUMMARY: reading a.txt.");
    expect(lastAssistant(retried)?.content[0]).toEqual({ type: "thinking", thinking: "I will read a.txt.", signature: "sig-1" });
    expect(ran.stdout).toContain("It says APPLE.");
  });

  test("a turn cut by an error after a tool call: the next prompt sends that call with its thinking", async () => {
    route.push(
      { match: isStep, body: readCall("sig-1") },
      { match: isStep, status: 400, error: messagesError("invalid_request_error", "something else is wrong") },
    );
    expect((await run(["read a.txt"])).code).not.toBe(0);
    route.push({ match: isStep, body: reply(textBlock(0, "It says APPLE.")) });
    const ran = await run(["-c", "go on"]);
    expect(ran.stderr).not.toContain("    at ");
    expect(ran.code).toBe(0);
    const sent = steps().at(-1);
    expect(sent?.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(lastAssistant(sent)?.content[0]).toEqual({ type: "thinking", thinking: "I will read a.txt.", signature: "sig-1" });
    expect(ran.stdout).toContain("It says APPLE.");
  });

  test("a cut loop whose call has no thinking kept (made with effort off): the next request goes without thinking", async () => {
    config("off");
    route.push(
      { match: isStep, body: reply(toolBlock(0, "toolu_01R", "read", '{"path":"a.txt"}'), "tool_use") },
      { match: isStep, status: 400, error: messagesError("invalid_request_error", "something else is wrong") },
    );
    expect((await run(["read a.txt"])).code).not.toBe(0);
    route.push({ match: isStep, body: reply(textBlock(0, "It says APPLE.")) });
    const ran = await run(["-c", "--effort", "medium", "go on"]);
    expect(ran.code).toBe(0);
    const sent = steps().at(-1);
    expect(sent?.thinking).toBeUndefined();
    expect(lastAssistant(sent)?.content[0]).toMatchObject({ type: "tool_use", id: "toolu_01R" });
    expect(ran.stdout).toContain("It says APPLE.");
  });
});

test("two tool_use blocks with one id in one reply both run, each tool_result naming its own call", async () => {
  writeFileSync(join(box.project, "b.txt"), "BANANA-MARKER\n");
  config("off");
  route.push(
    { match: isStep, body: reply(toolBlock(0, "toolu_dup", "read", '{"path":"a.txt"}') + toolBlock(1, "toolu_dup", "read", '{"path":"b.txt"}'), "tool_use") },
    { match: isStep, body: reply(textBlock(0, "Both read.")) },
  );
  expect((await run(["read a and b"])).code).toBe(0);
  const messages = steps().at(-1)?.messages as Message[];
  const uses = messages.flatMap((m) => m.content).filter((b) => b.type === "tool_use").map((b) => String(b.id));
  const results = messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
  expect(uses).toHaveLength(2);
  expect(new Set(uses).size).toBe(2);
  expect(results.map((r) => r.tool_use_id)).toEqual(uses);
  expect(JSON.stringify(results[0])).toContain("APPLE-MARKER");
  expect(JSON.stringify(results[1])).toContain("BANANA-MARKER");
});
