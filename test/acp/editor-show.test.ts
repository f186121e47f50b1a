import { afterEach, describe, expect, test } from "bun:test";
import type { Usage } from "@agentclientprotocol/sdk/unstable";
import { type Device, startDevice } from "../support/device.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isTitle, step } from "../support/engine.ts";
import { editorShow } from "../../src/acp/editor-show.ts";
import type { Link } from "../support/instance.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

let a: StdioAgent | null = null;
let model: ScriptedModel | null = null;
let d: Device | null = null;
afterEach(async () => {
  await a?.close();
  await model?.close();
  await d?.close();
  a = null;
  model = null;
  d = null;
});

/** An editor's agent whose connection says its models' context window. */
async function editor(window = 50_000): Promise<StdioAgent> {
  model = await startModel();
  return startStdioAgent({ model, config: `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    context: ${window}\n` });
}

async function newSession(agent: StdioAgent, mode = "edit"): Promise<string> {
  await agent.agent.request("initialize", initializeParams);
  return (await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [], _meta: { mode } })).sessionId;
}

const prompt = (agent: StdioAgent, sessionId: string, text = "go") => agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

const updatesOf = (agent: StdioAgent, kind: string) => agent.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === kind);

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await Bun.sleep(20);
  }
}

describe("the title an editor shows", () => {
  test("session_info_update with the first line's title, then the model's, each with when", async () => {
    a = await editor();
    a.model.push({ match: isTitle, text: "Named by model" }, step({ text: "ok" }));
    const sessionId = await newSession(a);
    await prompt(a, sessionId, "hello there");
    await until(() => updatesOf(a!, "session_info_update").some((u) => u.title === "Named by model"), "the model's title");
    const infos = updatesOf(a, "session_info_update");
    expect(infos.map((u) => u.title)).toEqual(["hello there", "Named by model"]);
    for (const info of infos) expect(new Date(String(info.updatedAt)).toISOString()).toBe(String(info.updatedAt));
    expect(a.updates.filter((u) => u.update.sessionUpdate === "session_info_update").every((u) => u.sessionId === sessionId)).toBe(true);
  });
});

describe("the usage an editor shows", () => {
  test("usage_update after each model call: the context's fill and window, the session's tokens so far", async () => {
    a = await editor(50_000);
    a.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }], usage: { prompt_tokens: 1_200, completion_tokens: 30 } }),
      step({ text: "done", usage: { prompt_tokens: 1_300, completion_tokens: 12 } }),
    );
    const sessionId = await newSession(a);
    await prompt(a, sessionId);
    expect(updatesOf(a, "usage_update")).toEqual([
      { sessionUpdate: "usage_update", used: 1_230, size: 50_000, _meta: { lembas: { inputTokens: 1_200, outputTokens: 30, totalTokens: 1_230 } } },
      { sessionUpdate: "usage_update", used: 1_312, size: 50_000, _meta: { lembas: { inputTokens: 2_500, outputTokens: 42, totalTokens: 2_542 } } },
    ]);
    // Each after its call: the first before the tool it asked for ran, the last before the answer.
    const kinds = a.updates.map((u) => u.update.sessionUpdate);
    expect(kinds.indexOf("usage_update")).toBeLessThan(kinds.indexOf("tool_call_update"));
    expect(kinds.lastIndexOf("usage_update")).toBeGreaterThan(kinds.lastIndexOf("tool_call_update"));
  });
});

describe("the tokens of a prompt's answer", () => {
  test("session/prompt's answer carries the turn's usage as the SDK's schema shapes it: its calls' input, output and total tokens", async () => {
    a = await editor(50_000);
    a.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }], usage: { prompt_tokens: 1_200, completion_tokens: 30 } }),
      step({ text: "done", usage: { prompt_tokens: 1_300, completion_tokens: 12 } }),
    );
    const sessionId = await newSession(a);
    await prompt(a, sessionId);
    // The next turn counts its own calls only.
    a.model.push(step({ text: "again", usage: { prompt_tokens: 1_400, completion_tokens: 5 } }));
    await prompt(a, sessionId, "once more");
    const answers = a.stdoutLines.map((l) => JSON.parse(l) as { result?: { stopReason?: string; usage?: unknown } }).filter((m) => m.result?.stopReason);
    // Typed as the unstable schema's Usage: the field names are the SDK's.
    const expected: Usage[] = [
      { inputTokens: 2_500, outputTokens: 42, totalTokens: 2_542 },
      { inputTokens: 1_400, outputTokens: 5, totalTokens: 1_405 },
    ];
    expect(answers.map((m) => m.result?.usage)).toEqual(expected);
  });
});

describe("what the updates are made of (src/acp/editor-show.ts)", () => {
  test("a helper's call adds its tokens and keeps the session's fill; before any call of the session's own there is no fill to say", () => {
    const show = editorShow();
    expect(show({ type: "usage", promptTokens: 500, completionTokens: 20 })).toEqual([]);
    expect(show({ type: "usage", promptTokens: 1_000, completionTokens: 50, contextLimit: 8_000 })).toEqual([
      { sessionUpdate: "usage_update", used: 1_050, size: 8_000, _meta: { lembas: { inputTokens: 1_500, outputTokens: 70, totalTokens: 1_570 } } },
    ]);
    expect(show({ type: "usage", promptTokens: 300, completionTokens: 10 })).toEqual([
      { sessionUpdate: "usage_update", used: 1_050, size: 8_000, _meta: { lembas: { inputTokens: 1_800, outputTokens: 80, totalTokens: 1_880 } } },
    ]);
  });

  test("a title said again unchanged is not sent twice; other events show nothing", () => {
    const show = editorShow();
    expect(show({ type: "title", id: "s", title: "Fix the bug" })).toMatchObject([{ sessionUpdate: "session_info_update", title: "Fix the bug" }]);
    expect(show({ type: "title", id: "s", title: "Fix the bug" })).toEqual([]);
    expect(show({ type: "title", id: "s", title: "Fix the parser" })).toMatchObject([{ sessionUpdate: "session_info_update", title: "Fix the parser" }]);
    expect(show({ type: "text", delta: "hi" })).toEqual([]);
  });
});

describe("a denial an editor shows", () => {
  const lastOf = (agent: StdioAgent, callId: string | undefined) =>
    agent.updates.map((u) => u.update as { toolCallId?: string; status?: string; content?: { content?: { text?: string } }[] }).filter((u) => u.toolCallId === callId).at(-1);

  test("the person's No with their words reads as theirs: failed, denied, their feedback", async () => {
    a = await editor();
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" }, _meta: { lembas: { feedback: "use the Makefile" } } });
    await prompt(a, await newSession(a));
    const last = lastOf(a, a.permissionRequests[0]?.toolCall.toolCallId);
    expect(last?.status).toBe("failed");
    expect(last?.content?.[0]?.content?.text).toBe("denied by you: “use the Makefile”");
  });

  test("a No without words, answered with the card's reject option, is denied by you and says no rule", async () => {
    a = await editor();
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = (request) => ({ outcome: { outcome: "selected", optionId: request.options.find((o) => o.kind === "reject_once")?.optionId ?? "" } });
    await prompt(a, await newSession(a));
    const last = lastOf(a, a.permissionRequests[0]?.toolCall.toolCallId);
    expect(last).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: "denied by you" } }] });
  });
});

describe("the link keeps the spec's updates", () => {
  const linkUpdates = (link: Link, sessionId: string) =>
    link.notifications
      .filter((n) => n.method === "session/update")
      .map((n) => n.params as { sessionId: string; update: { sessionUpdate: string; toolCallId?: string; status?: string; content?: unknown } })
      .filter((p) => p.sessionId === sessionId)
      .map((p) => p.update);

  test("no session_info_update or usage_update on the link (its client reads the title and usage events), and a denial reads as the person's there too", async () => {
    d = await startDevice();
    const link = await d.serve();
    link.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "deny" }, _meta: { lembas: { feedback: "not now" } } }));
    d.model.push({ match: isTitle, text: "Named by model" }, step({ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok", usage: { prompt_tokens: 900, completion_tokens: 9 } }));
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "edit" } })) as { sessionId: string };
    const answer = await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello there" }] }, 30_000);
    // The prompt's answer as the spec shows it: no usage (the link's client reads the usage events).
    expect(answer).not.toHaveProperty("usage");
    await link.waitForNotification((n) => JSON.stringify(n.params).includes("Named by model"), 10_000);
    const updates = linkUpdates(link, sessionId);
    expect(updates.map((u) => u.sessionUpdate)).not.toContain("session_info_update");
    expect(updates.map((u) => u.sessionUpdate)).not.toContain("usage_update");
    expect(updates.filter((u) => u.toolCallId === "b1").at(-1)).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: "denied by you: “not now”" } }] });
  });
});
