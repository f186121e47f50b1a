import { afterAll, describe, expect, test } from "bun:test";
import type { ModelError } from "../../src/model/errors.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import { type ChatMessage, type ChatRequest, requestBody } from "../../src/model/request.ts";
import { streamModel } from "../../src/model/reply-stream.ts";
import { ToolCallAccumulator } from "../../src/model/toolcalls.ts";
import { messagesError, messagesRoute } from "../support/messages-server.ts";
import { startModel } from "../support/model.ts";
import { messagesFixtures, reply, textBlock, thinkingBlock, toolBlock } from "./fixtures/messages.ts";

// The real client against the scripted model's /v1/messages, which replays the fixtures and records what was sent.
const route = messagesRoute([]);
const model = await startModel({ routes: [route] });
afterAll(() => model.close());

const endpoint: Endpoint = { name: "claude", baseUrl: model.url, apiKey: "sk-ant-test", api: "messages" };
const retry = { retries: 2, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} };

function request(fields: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "claude-sonnet-4-5", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "go" }], effort: "off", ...fields };
}

type Summary = { text: string; reasoning: string; calls: unknown[]; carry: unknown[]; finish?: string; error?: ModelError; usage: ModelEvent | null };

async function run(req: ChatRequest = request(), at: Endpoint = endpoint): Promise<Summary> {
  const events: ModelEvent[] = [];
  for await (const e of streamModel(at, req, { retry })) events.push(e);
  expect(["finish", "error"]).toContain(events.at(-1)?.type ?? "none");
  const calls = new ToolCallAccumulator(() => "generated");
  const summary: Summary = { text: "", reasoning: "", calls: [], carry: [], usage: null };
  for (const e of events) {
    if (e.type === "text") summary.text += e.delta;
    else if (e.type === "reasoning") summary.reasoning += e.delta;
    else if (e.type === "tool_call_delta") calls.add(e);
    else if (e.type === "carry") summary.carry.push(e.item.item);
    else if (e.type === "usage") summary.usage = e;
    else if (e.type === "finish") summary.finish = e.reason;
    else if (e.type === "error") summary.error = e.error;
  }
  // A call cut at the token limit is not JSON: kept as its text (the engine runs no call of such a reply).
  summary.calls = calls.result().map((c) => ({ id: c.id, name: c.name, arguments: parsedOr(c.arguments) }));
  return summary;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

describe("Messages: each documented stream shape", () => {
  for (const fixture of messagesFixtures) {
    test(fixture.name, async () => {
      // A failure that is retried is replayed at every try.
      route.push({ body: fixture.body, times: fixture.expect.error === "server" ? retry.retries + 1 : 1 });
      const got = await run();
      const want = fixture.expect;
      expect(got.text).toBe(want.text ?? "");
      expect(got.reasoning).toBe(want.reasoning ?? "");
      if (want.calls) expect(got.calls).toEqual(want.calls);
      if (want.carry) expect(got.carry).toEqual(want.carry);
      if (want.finish) expect(got.finish).toBe(want.finish);
      if (want.error) {
        expect(got.error?.kind).toBe(want.error);
        expect(got.error?.message).toContain(want.errorSays ?? "");
        expect(got.error?.message).not.toContain("    at ");
      }
      if (want.usage) expect(got.usage).toMatchObject(want.usage);
      if (want.cache) expect(got.usage).toMatchObject({ cacheReadTokens: want.cache.read, cacheWriteTokens: want.cache.write });
    });
  }
});

describe("Messages: what is sent", () => {
  test("POST /v1/messages with x-api-key and anthropic-version; the system prompt as system; max_tokens from the Claude table", async () => {
    route.push({ body: reply(textBlock(0, "ok")) });
    const before = route.requests.length;
    await run();
    const sent = route.requests[before];
    expect(sent?.headers.get("x-api-key")).toBe("sk-ant-test");
    expect(sent?.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(sent?.headers.get("authorization")).toBeNull();
    expect(sent?.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 64_000, stream: true, system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] });
    expect(sent?.body.thinking).toBeUndefined();
  });

  test("the effort is a thinking budget below max_tokens; off sends none", async () => {
    for (const [effort, budget] of [["low", 2048], ["medium", 8192], ["high", 24576]] as const) {
      route.push({ body: reply(textBlock(0, "ok")) });
      const before = route.requests.length;
      await run(request({ effort }));
      expect(route.requests[before]?.body.thinking).toEqual({ type: "enabled", budget_tokens: budget });
    }
    route.push({ body: reply(textBlock(0, "ok")) });
    const before = route.requests.length;
    await run(request({ effort: "high", maxTokens: 4096 }));
    expect(route.requests[before]?.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  test("a connection's body: temperature, top_k, top_p below 0.95 left out when thinking, sent when not; its max_tokens bounds the budget", async () => {
    const body = { temperature: 0.2, top_k: 5, top_p: 0.9, max_tokens: 4000, metadata: { user_id: "u1" } };
    route.push({ body: reply(textBlock(0, "ok")) }, { body: reply(textBlock(0, "ok")) });
    const before = route.requests.length;
    const thinking = await run(request({ effort: "medium" }), { ...endpoint, body });
    expect(thinking.error).toBeUndefined();
    const sent = route.requests[before]?.body;
    expect(sent).toMatchObject({ max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2000 }, metadata: { user_id: "u1" } });
    expect([sent?.temperature, sent?.top_k, sent?.top_p]).toEqual([undefined, undefined, undefined]);
    await run(request({ effort: "off" }), { ...endpoint, body });
    expect(route.requests[before + 1]?.body).toMatchObject({ temperature: 0.2, top_k: 5, top_p: 0.9, max_tokens: 4000 });
  });

  test("the second step carries the thinking block with its signature, the tool_use, and its result; cache breakpoints on the tools, the system prompt and the last block", async () => {
    route.push({ body: reply(thinkingBlock(0, ["Read it."], "sig-1") + toolBlock(1, "toolu_9", "read", '{"path":"a.ts"}'), "tool_use") });
    const first = await run(request({ effort: "medium" }));
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_9", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } }], carry: first.carry.map((item) => ({ api: "messages" as const, item: item as Record<string, unknown> })) },
      { role: "tool", tool_call_id: "toolu_9", content: "export const a = 1;" },
      { role: "user", content: [{ type: "text", text: "The images the tools read:" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
    ];
    const tools = [{ type: "function" as const, function: { name: "read", description: "Reads a file.", parameters: { type: "object", properties: {} } } }];
    route.push({ body: reply(textBlock(0, "It exports a.")) });
    const before = route.requests.length;
    await run(request({ effort: "medium", messages, tools }));
    const body = route.requests[before]?.body;
    expect(body?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Read it.", signature: "sig-1" },
          { type: "tool_use", id: "toolu_9", name: "read", input: { path: "a.ts" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_9", content: "export const a = 1;" },
          { type: "text", text: "The images the tools read:" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    expect(body?.tools).toEqual([{ name: "read", description: "Reads a file.", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } }]);
  });

  test("two assistant messages in a row are one, its thinking first", async () => {
    route.push({ body: reply(textBlock(0, "ok")) });
    const before = route.requests.length;
    const messages: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "Understood." },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "read", arguments: "{}" } }], carry: [{ api: "messages", item: { type: "thinking", thinking: "Read it.", signature: "sig-1" } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "x" },
    ];
    expect((await run(request({ effort: "medium", messages }))).error).toBeUndefined();
    const sent = route.requests[before]?.body.messages as { role: string; content: { type: string }[] }[];
    expect(sent[1]?.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
  });

  test("a carried item of another API is not sent", async () => {
    route.push({ body: reply(textBlock(0, "ok")) });
    const before = route.requests.length;
    const messages: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "hm", carry: [{ api: "responses", item: { type: "reasoning", encrypted_content: "x" } }] },
      { role: "user", content: "again" },
    ];
    await run(request({ messages }));
    expect(JSON.stringify(route.requests[before]?.body.messages)).not.toContain("encrypted_content");
  });
});

describe("a failed tool result", () => {
  test("chat completions is sent no field of its own (Messages sends it as is_error)", () => {
    const messages: ChatMessage[] = [
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "read failed: no such file", failed: true },
    ];
    expect((requestBody(request({ messages })).messages as ChatMessage[])[1]).toEqual({ role: "tool", tool_call_id: "c1", content: "read failed: no such file" });
  });
});

describe("Messages: failures", () => {
  test("529 overloaded is retried like a 5xx, then the reply streams", async () => {
    route.push({ status: 529, error: messagesError("overloaded_error", "Overloaded") }, { body: reply(textBlock(0, "after")) });
    const before = route.requests.length;
    const got = await run();
    expect(got.text).toBe("after");
    expect(route.requests.length - before).toBe(2);
  });

  test("an overloaded_error event before any token is retried", async () => {
    route.push({ body: messagesFixtures.find((f) => f.name.startsWith("an error event before any token"))?.body ?? "" }, { body: reply(textBlock(0, "second try")) });
    expect((await run()).text).toBe("second try");
  });

  test("a 400 prompt-too-long is the overflow error the engine compacts on", async () => {
    route.push({ status: 400, error: messagesError("invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum") });
    expect((await run()).error?.kind).toBe("context_overflow");
  });

  test("a refused key says which connection's key to check", async () => {
    route.push({ status: 401, error: messagesError("authentication_error", "invalid x-api-key") });
    const got = await run();
    expect(got.error?.kind).toBe("auth");
    expect(got.error?.message).toContain("invalid x-api-key");
  });
});

describe("Messages: silence and cancel, as for chat completions", () => {
  test("a server silent past idle_timeout ends the reply with a timeout that says how to wait longer", async () => {
    route.push({ body: "", hang: true });
    const events: ModelEvent[] = [];
    const quiet = { ...endpoint, idle: { seconds: 0.2, hint: "raise idle_timeout" } };
    for await (const e of streamModel(quiet, request(), { retry: { ...retry, retries: 0 } })) events.push(e);
    const last = events.at(-1);
    expect(last?.type === "error" ? last.error.kind : last?.type).toBe("timeout");
    expect(last?.type === "error" ? last.error.message : "").toContain("raise idle_timeout");
  });

  test("cancelling stops the stream with an aborted error", async () => {
    route.push({ body: "", hang: true });
    const abort = new AbortController();
    const events: ModelEvent[] = [];
    const waiting = route.waitForRequests(route.requests.length + 1);
    const running = (async () => {
      for await (const e of streamModel(endpoint, request(), { signal: abort.signal, retry })) events.push(e);
    })();
    await waiting;
    abort.abort();
    await running;
    const last = events.at(-1);
    expect(last?.type === "error" ? last.error.kind : last?.type).toBe("aborted");
  });
});
