import { afterEach, describe, expect, test } from "bun:test";
import { streamChat, type StreamOptions } from "../../src/model/client.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import type { ChatRequest } from "../../src/model/request.ts";
import { ToolCallAccumulator } from "../../src/model/toolcalls.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function scripted(...args: Parameters<typeof startModel>): Promise<ScriptedModel> {
  const model = await startModel(...args);
  closers.push(() => model.close());
  return model;
}

/** A server of our own for streams the scripted model does not make. */
function raw(handler: (req: Request, n: number) => Response | Promise<Response>): { url: string; count: () => number } {
  let n = 0;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (req) => handler(req, n++) });
  closers.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/v1`, count: () => n };
}

/** An SSE body of `frames` (each a data payload, or a raw string starting with ":"), closed at the end. */
function sse(frames: (string | object)[]): Response {
  const text = frames.map((f) => (typeof f === "string" && f.startsWith(":") ? `${f}\r\n\r\n` : `data: ${typeof f === "string" ? f : JSON.stringify(f)}\r\n\r\n`)).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

const endpoint = (url: string, apiKey: string | null = null): Endpoint => ({ name: "test", baseUrl: url, apiKey });
const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({ model: "test-model", messages: [{ role: "user", content: "hi" }], effort: "medium", ...over });

/** Waits are recorded, not slept; no jitter. */
function fastRetry(waits: number[] = []): StreamOptions["retry"] {
  return { sleep: async (ms) => void waits.push(ms), random: () => 0 };
}

async function collect(stream: AsyncGenerator<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const text = (events: ModelEvent[], type: "text" | "reasoning" = "text") =>
  events.map((e) => (e.type === type ? e.delta : "")).join("");
const last = (events: ModelEvent[]) => events[events.length - 1];

function errorOf(events: ModelEvent[]) {
  const end = last(events);
  if (end?.type !== "error") throw new Error(`the stream ended with ${JSON.stringify(end)}, not an error`);
  return end.error;
}

describe("streamChat: a reply", () => {
  test("text, reasoning and tool calls arrive as deltas; the calls assemble whole", async () => {
    const model = await scripted({
      replies: [
        {
          reasoning: "Let me look.",
          text: "Reading two files.",
          toolCalls: [
            { id: "call_a", name: "read", arguments: { path: "a.ts" }, chunks: 4 },
            { id: "call_b", name: "read", arguments: { path: "b.ts" }, chunks: 3 },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 30 },
        },
      ],
    });
    const events = await collect(streamChat(endpoint(model.url), request()));
    expect(text(events, "reasoning")).toBe("Let me look.");
    expect(text(events)).toBe("Reading two files.");
    const calls = new ToolCallAccumulator();
    for (const e of events) if (e.type === "tool_call_delta") calls.add(e);
    expect(calls.result()).toEqual([
      { id: "call_a", name: "read", arguments: '{"path":"a.ts"}' },
      { id: "call_b", name: "read", arguments: '{"path":"b.ts"}' },
    ]);
    expect(events.slice(-2)).toEqual([
      { type: "usage", promptTokens: 120, completionTokens: 30 },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  test("the request is a streaming chat completion with usage, tools, effort and the key", async () => {
    const model = await scripted({ replies: [{ text: "ok" }] });
    const tools = [{ type: "function" as const, function: { name: "read", description: "Read a file", parameters: { type: "object" } } }];
    await collect(streamChat(endpoint(model.url, "sk-test-key"), request({ tools, effort: "high" })));
    const [sent] = model.requests;
    expect(sent?.authorization).toBe("Bearer sk-test-key");
    expect(sent?.body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true }, tools, reasoning_effort: "high" });
  });

  test('effort "off" sends no reasoning_effort, no key sends no Authorization, no tools sends no tools', async () => {
    const model = await scripted({ replies: [{ text: "ok" }] });
    await collect(streamChat(endpoint(model.url), request({ effort: "off", tools: [] })));
    const [sent] = model.requests;
    expect(sent?.authorization).toBeNull();
    expect(sent?.body).not.toHaveProperty("reasoning_effort");
    expect(sent?.body).not.toHaveProperty("tools");
  });

  test("reasoning also comes from a `reasoning` delta", async () => {
    const model = await scripted({ replies: [{ reasoning: "hmm", reasoningField: "reasoning", text: "yes" }] });
    const events = await collect(streamChat(endpoint(model.url), request()));
    expect(text(events, "reasoning")).toBe("hmm");
  });

  const finishes: [string, string][] = [
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["content_filter", "refusal"],
    ["tool_calls", "tool_calls"],
    ["something_new", "end_turn"],
  ];
  for (const [given, reason] of finishes) {
    test(`finish_reason ${given} → ${reason}`, async () => {
      const model = await scripted({ replies: [{ text: "x", finishReason: given }] });
      const events = await collect(streamChat(endpoint(model.url), request()));
      expect(last(events)).toEqual({ type: "finish", reason: reason as "end_turn" });
    });
  }

  test('tool calls finished with "stop" (older local servers) are still tool_calls', async () => {
    const model = await scripted({ replies: [{ toolCalls: [{ name: "list", arguments: {} }], finishReason: "stop" }] });
    const events = await collect(streamChat(endpoint(model.url), request()));
    expect(last(events)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  test("calls a server sends all at index 0 stay apart by id; a call without id gets one", async () => {
    const server = raw(() =>
      sse([
        delta({ tool_calls: [{ index: 0, id: "c1", function: { name: "read", arguments: '{"p":1}' } }] }),
        delta({ tool_calls: [{ index: 0, id: "c2", function: { name: "grep", arguments: '{"q":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { name: "list", arguments: "" } }] }, "tool_calls"),
        "[DONE]",
      ]),
    );
    const calls = new ToolCallAccumulator(() => "generated");
    for (const e of await collect(streamChat(endpoint(server.url), request()))) if (e.type === "tool_call_delta") calls.add(e);
    expect(calls.result()).toEqual([
      { id: "c1", name: "read", arguments: '{"p":1}' },
      { id: "c2", name: "grep", arguments: '{"q":"x"}' },
      { id: "generated", name: "list", arguments: "{}" },
    ]);
  });

  test("comments, \\r\\n and a stream that ends after its finish without [DONE] are fine", async () => {
    const server = raw(() => sse([": ping", delta({ content: "hi" }), delta({}, "stop"), { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }]));
    const events = await collect(streamChat(endpoint(server.url), request()));
    expect(events).toEqual([
      { type: "text", delta: "hi" },
      { type: "usage", promptTokens: 3, completionTokens: 1 },
      { type: "finish", reason: "end_turn" },
    ]);
  });
});

describe("streamChat: failures", () => {
  test("401 is an auth error naming what to fix, never the key", async () => {
    const key = "sk-very-secret-123";
    const server = raw(() => Response.json({ error: { message: `Incorrect API key provided: ${key}` } }, { status: 401 }));
    const events = await collect(streamChat({ ...endpoint(server.url, key), authHint: "check api_key of connection \"test\"" }, request(), { retry: fastRetry() }));
    const error = errorOf(events);
    expect(error.kind).toBe("auth");
    expect(error.status).toBe(401);
    expect(error.message).toBe(`the model server at ${server.url} refused the key (HTTP 401: Incorrect API key provided: [key]); check api_key of connection "test"`);
    expect(JSON.stringify(events)).not.toContain(key);
    expect(server.count()).toBe(1);
  });

  test("a 500 is retried with backoff, then the reply streams", async () => {
    const model = await scripted({ replies: [{ text: "recovered", fail: { status: 500 }, failTimes: 2 }] });
    const waits: number[] = [];
    const events = await collect(streamChat(endpoint(model.url), request(), { retry: { ...fastRetry(waits), baseDelayMs: 100 } }));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && [e.attempt, e.error.kind])).toEqual([
      [1, "server"],
      [2, "server"],
    ]);
    expect(waits).toEqual([100, 200]);
    expect(text(events)).toBe("recovered");
    expect(last(events)).toEqual({ type: "finish", reason: "end_turn" });
    expect(model.requests).toHaveLength(3);
  });

  test("429 waits as long as Retry-After says; a wait longer than the cap is said, not waited for", async () => {
    const model = await scripted({
      replies: [
        { text: "a", fail: { status: 429, retryAfter: 2 } },
        { text: "b", fail: { status: 429, retryAfter: 3600 } },
        { text: "done" },
      ],
    });
    const waits: number[] = [];
    const events = await collect(streamChat(endpoint(model.url), request(), { retry: { ...fastRetry(waits), maxRetryAfterMs: 30_000 } }));
    expect(waits).toEqual([2000]);
    expect(errorOf(events).message).toEndWith("; it asks to wait 60 min, longer than lembas waits on its own: try again then");
    expect(model.requests).toHaveLength(2);
  });

  test("retries end: the error says how many times it tried", async () => {
    const model = await scripted({ fallback: { fail: { status: 503 } } });
    const events = await collect(streamChat(endpoint(model.url), request(), { retry: { ...fastRetry(), retries: 2 } }));
    const error = errorOf(events);
    expect(error.kind).toBe("server");
    expect(error.message).toBe(`the model server at ${model.url} failed (HTTP 503: scripted failure (503)) (tried 3 times)`);
    expect(model.requests).toHaveLength(3);
  });

  test("a 400 is not retried", async () => {
    const model = await scripted({ replies: [{ fail: { status: 400, body: '{"error":{"message":"bad tools"}}' } }] });
    const error = errorOf(await collect(streamChat(endpoint(model.url), request(), { retry: fastRetry() })));
    expect(error.kind).toBe("bad_request");
    expect(error.message).toContain("bad tools");
    expect(model.requests).toHaveLength(1);
  });

  test("an error after the first token is not retried: the stream ends cut", async () => {
    const server = raw(() => sse([delta({ content: "Hel" }), { error: { message: "upstream failed", code: 500 } }]));
    const events = await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() }));
    expect(text(events)).toBe("Hel");
    const error = errorOf(events);
    expect(error.kind).toBe("cut");
    expect(error.message).toBe(`the model server at ${server.url} stopped mid-reply: upstream failed`);
    expect(server.count()).toBe(1);
  });

  test("an error inside the stream before any token is retried", async () => {
    const server = raw((_, n) => (n === 0 ? sse([{ error: { message: "overloaded", code: 503 } }]) : sse([delta({ content: "ok" }, "stop"), "[DONE]"])));
    const events = await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() }));
    expect(text(events)).toBe("ok");
    expect(server.count()).toBe(2);
  });

  test("a stream that closes before saying anything is retried", async () => {
    const server = raw((_, n) => (n === 0 ? sse([]) : sse([delta({ content: "ok" }, "stop"), "[DONE]"])));
    const events = await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() }));
    expect(events.map((e) => e.type)).toEqual(["retry", "text", "finish"]);
    expect(server.count()).toBe(2);
  });

  test("a connection dropped mid-reply ends the stream cut, without retrying", async () => {
    const model = await scripted({ replies: [{ text: "one two three four five six", fail: "cut" }] });
    const events = await collect(streamChat(endpoint(model.url), request(), { retry: fastRetry() }));
    expect(text(events).length).toBeGreaterThan(0);
    expect(errorOf(events).kind).toBe("cut");
    expect(model.requests).toHaveLength(1);
  });

  test("a connection lost after the reply finished only loses the usage", async () => {
    const server = raw(() => {
      const frames = [delta({ content: "done" }), delta({}, "stop")].map((f) => `data: ${JSON.stringify(f)}\n\n`).join("");
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(frames));
          await Bun.sleep(20);
          controller.error(undefined);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const events = await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() }));
    expect(events).toEqual([
      { type: "text", delta: "done" },
      { type: "finish", reason: "end_turn" },
    ]);
  });

  test("a stream that closes before its reply is done (no finish, no [DONE]) is cut", async () => {
    const server = raw(() => sse([delta({ content: "partial" })]));
    const events = await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() }));
    const error = errorOf(events);
    expect(error.kind).toBe("cut");
    expect(error.message).toBe(`the model server at ${server.url} stopped mid-reply: the stream ended before the reply did`);
  });

  test("a line that is not JSON is malformed", async () => {
    const model = await scripted({ replies: [{ text: "one two three four", fail: "malformed" }] });
    const error = errorOf(await collect(streamChat(endpoint(model.url), request(), { retry: fastRetry() })));
    expect(error.kind).toBe("malformed");
    expect(error.message).toStartWith(`the model server at ${model.url} sent something that is not a chat-completions chunk: {"id":"chatcmpl-malformed"`);
  });

  test("a JSON answer instead of a stream is malformed, with the server's words", async () => {
    const server = raw(() => Response.json({ error: "streaming is not supported" }));
    const error = errorOf(await collect(streamChat(endpoint(server.url), request(), { retry: fastRetry() })));
    expect(error.kind).toBe("malformed");
    expect(error.message).toEndWith("answered with JSON, not a stream: streaming is not supported");
  });

  test("connection refused is unreachable, retried, and said plainly", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${gone.port}/v1`;
    await gone.stop(true);
    const waits: number[] = [];
    const error = errorOf(await collect(streamChat(endpoint(url), request(), { retry: { ...fastRetry(waits), retries: 1 } })));
    expect(error.kind).toBe("unreachable");
    expect(error.message).toBe(`the model server at ${url} did not answer: connection refused (tried 2 times)`);
    expect(waits).toHaveLength(1);
  });
});

describe("streamChat: abort", () => {
  test("aborting mid-reply ends the stream at once with `aborted`", async () => {
    const model = await scripted({ replies: [{ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 20 }] });
    const abort = new AbortController();
    const events: ModelEvent[] = [];
    let aborting = false;
    for await (const event of streamChat(endpoint(model.url), request(), { signal: abort.signal })) {
      events.push(event);
      if (event.type === "text" && !aborting) {
        aborting = true;
        setTimeout(() => abort.abort(), 30);
      }
    }
    expect(errorOf(events).kind).toBe("aborted");
    // Far fewer than the 200 words scripted: the stream stopped soon after the abort.
    expect(events.filter((e) => e.type === "text").length).toBeLessThan(100);
  });

  test("aborting while waiting to retry stops the wait", async () => {
    const model = await scripted({ fallback: { fail: { status: 500 } } });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    // A wait the signal did not cut (60 to 120 s) would time the test out.
    const retry = { baseDelayMs: 120_000, maxDelayMs: 120_000 };
    const events = await collect(streamChat(endpoint(model.url), request(), { signal: abort.signal, retry }));
    expect(errorOf(events).kind).toBe("aborted");
    expect(model.requests).toHaveLength(1);
  }, 30_000);

  test("an already aborted signal sends nothing", async () => {
    const model = await scripted({ replies: [{ text: "x" }] });
    const events = await collect(streamChat(endpoint(model.url), request(), { signal: AbortSignal.abort() }));
    expect(errorOf(events).kind).toBe("aborted");
    expect(model.requests).toHaveLength(0);
  });

  test("a consumer that stops reading closes the connection", async () => {
    let cancelled = false;
    const server = raw(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(delta({ content: "a" }))}\n\n`));
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    for await (const event of streamChat(endpoint(server.url), request())) if (event.type === "text") break;
    const deadline = Date.now() + 3000;
    while (!cancelled && Date.now() < deadline) await Bun.sleep(10);
    expect(cancelled).toBe(true);
  });
});
