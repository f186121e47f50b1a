import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FixtureRoute, RecordedBody } from "../support/fixture-route.ts";
import { messagesError, messagesRoute } from "../support/messages-server.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, projectSandbox, runLembas } from "../support/run.ts";
import { reply, textBlock, thinkingBlock, toolBlock } from "../model/fixtures/messages.ts";

// lembas run against a connection that speaks Anthropic's Messages API (config.yaml's api), the
// scripted model's /v1/messages replaying documented streams and recording what lembas sent.
let box: ProjectSandbox;
let model: ScriptedModel;
let route: FixtureRoute;
beforeEach(async () => {
  // Side calls (the session's title, a summary) have no tools: they get the fallback, or their own replies.
  route = messagesRoute([], { body: reply(textBlock(0, "A title")), times: Infinity });
  model = await startModel({ routes: [route] });
  box = projectSandbox(model.url);
  writeFileSync(join(box.configDir, "config.yaml"), `model: claude/claude-sonnet-4-5\neffort: medium\nconnections:\n  claude:\n    base_url: ${model.url}\n    api: messages\n    api_key: sk-ant-test\n`);
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

const isStep = (body: RecordedBody) => Array.isArray(body.tools) && body.tools.length > 0;
const steps = () => route.requests.filter((r) => isStep(r.body)).map((r) => r.body);
const run = (args: string[]) => runLembas(box, ["run", "--format", "json", ...args], { cwd: box.project });
type Line = { type: string; [key: string]: unknown };
const result = (stdout: string): Line | undefined => stdout.trim().split("\n").map((l) => JSON.parse(l) as Line).find((l) => l.type === "result");

describe("lembas run over the Messages API", () => {
  test("a tool turn: the second step carries the thinking block with its signature and the tool result, cache_control on the system prompt and the last message; usage with the cache's tokens", async () => {
    writeFileSync(join(box.project, "a.txt"), "APPLE-MARKER\n");
    route.push(
      { match: isStep, body: reply(thinkingBlock(0, ["I will read ", "a.txt."], "sig-A1") + toolBlock(1, "toolu_01R", "read", '{"path":"a.txt"}'), "tool_use") },
      {
        match: isStep,
        body: reply(textBlock(0, "It says APPLE."), "end_turn", { input_tokens: 40, cache_read_input_tokens: 3000, cache_creation_input_tokens: 200, output_tokens: 9 }),
      },
    );
    const ran = await run(["what does a.txt say?"]);
    expect(ran.stderr).not.toContain("    at ");
    expect(ran.code).toBe(0);
    const [first, second] = steps();
    expect(first?.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect((first?.system as { cache_control?: unknown }[])[0]?.cache_control).toEqual({ type: "ephemeral" });
    const messages = second?.messages as { role: string; content: Record<string, unknown>[] }[];
    const assistant = messages.find((m) => m.role === "assistant");
    expect(assistant?.content[0]).toEqual({ type: "thinking", thinking: "I will read a.txt.", signature: "sig-A1" });
    expect(assistant?.content.at(-1)).toMatchObject({ type: "tool_use", id: "toolu_01R", name: "read", input: { path: "a.txt" } });
    const last = messages.at(-1);
    expect(last?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01R" });
    expect(JSON.stringify(last?.content[0])).toContain("APPLE-MARKER");
    expect(last?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(route.requests[0]?.headers.get("x-api-key")).toBe("sk-ant-test");
    const end = result(ran.stdout);
    expect(end).toMatchObject({ ok: true, stopReason: "end_turn", usage: { cacheReadTokens: 3000, cacheWriteTokens: 200 } });
    expect(JSON.stringify(ran.stdout)).toContain("It says APPLE.");
  });

  test("a failed call's result goes back with is_error, a call that worked without it", async () => {
    writeFileSync(join(box.project, "a.txt"), "APPLE-MARKER\n");
    const calls = toolBlock(1, "toolu_01A", "read", '{"path":"a.txt"}') + toolBlock(2, "toolu_01B", "read", '{"path":"missing.txt"}');
    route.push({ match: isStep, body: reply(thinkingBlock(0, ["Read both."], "sig-E") + calls, "tool_use") }, { match: isStep, body: reply(textBlock(0, "One is missing.")) });
    const ran = await run(["read a.txt and missing.txt"]);
    expect(ran.code).toBe(0);
    const results = (steps()[1]?.messages as { content: Record<string, unknown>[] }[]).at(-1)?.content ?? [];
    expect(results.find((b) => b.tool_use_id === "toolu_01A")?.is_error).toBeUndefined();
    expect(results.find((b) => b.tool_use_id === "toolu_01B")).toMatchObject({ type: "tool_result", is_error: true });
  });

  test("an overflow error compacts the history and the step is sent once more", async () => {
    route.push({ match: isStep, body: reply(textBlock(0, "the first answer")) });
    expect((await run(["first question"])).code).toBe(0);
    const summary = (body: RecordedBody) => !isStep(body) && JSON.stringify(body.system ?? "").includes("You summarise a coding session");
    route.push(
      { match: isStep, status: 400, error: messagesError("invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum") },
      { match: summary, body: reply(textBlock(0, "SUMMARY: one question so far.")) },
      { match: isStep, body: reply(textBlock(0, "the second answer")) },
    );
    const ran = await run(["-c", "second question"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(`"type":"compacted"`);
    expect(ran.stdout).toContain(`"contextLimit":200000`);
    const retried = JSON.stringify(steps().at(-1)?.messages);
    expect(retried).toContain("SUMMARY: one question so far.");
    expect(retried).toContain("second question");
    expect(steps()).toHaveLength(3);
  });

  test("a refusal ends the turn with refusal; a reply cut at max_tokens mid-call runs no call", async () => {
    route.push({ match: isStep, body: reply(textBlock(0, "I can't help with that."), "refusal") });
    const refused = await run(["do a bad thing"]);
    expect(result(refused.stdout)).toMatchObject({ stopReason: "refusal" });
    const cut = reply(textBlock(0, "Writing.") + toolBlock(1, "toolu_01W", "write", '{"path": "b.txt", "content": "hal'), "max_tokens");
    route.push({ match: isStep, body: cut });
    const ran = await run(["write b.txt"]);
    expect(result(ran.stdout)).toMatchObject({ stopReason: "max_tokens" });
    expect(await Bun.file(join(box.project, "b.txt")).exists()).toBe(false);
    expect(ran.stderr).not.toContain("    at ");
  });

  test("an error event mid-reply ends the turn with a sentence, what came kept", async () => {
    const broken = `${reply("").split("event: message_delta")[0]}${textBlock(0, "Part")}event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message: "Internal server error" } })}\n\n`;
    route.push({ match: isStep, body: broken });
    const ran = await run(["go"]);
    expect(ran.code).not.toBe(0);
    const end = result(ran.stdout);
    expect(String(end?.error)).toContain("stopped mid-reply: Internal server error");
    expect(ran.stderr).not.toContain("    at ");
  });

  test("a call written as text is the answer's text: a Messages server parses calls itself, whatever text_tool_calls says", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: claude/claude-sonnet-4-5\nconnections:\n  claude:\n    base_url: ${model.url}\n    api: messages\n    api_key: sk-ant-test\n    text_tool_calls: true\n`);
    const written = '<tool_call>{"name": "write", "arguments": {"path": "c.txt", "content": "x"}}</tool_call>';
    route.push({ match: isStep, body: reply(textBlock(0, written)) });
    const ran = await run(["write c.txt"]);
    expect(result(ran.stdout)).toMatchObject({ ok: true, stopReason: "end_turn" });
    expect(await Bun.file(join(box.project, "c.txt")).exists()).toBe(false);
    expect(steps()).toHaveLength(1);
  });
});
