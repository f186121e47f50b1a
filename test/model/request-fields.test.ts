// A server that refuses a request field: the request goes again at once without it, and the
// connection's model is not sent it again in this process. Real servers' wordings.
import { afterEach, describe, expect, test } from "bun:test";
import { Config } from "../../src/config/schema.ts";
import { streamChat } from "../../src/model/client.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import type { ChatRequest } from "../../src/model/request.ts";
import { ModelRegistry } from "../../src/model/registry.ts";
import { MemoryRejectedFields } from "../../src/model/request-fields.ts";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const OK = 'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

/** A server that refuses a request whose body `refuses` names, with `status` and `body`, and records every body. */
function refusing(refuses: (body: Record<string, unknown>) => boolean, status: number, body: string) {
  const bodies: Record<string, unknown>[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/v1/models") return Response.json({ object: "list", data: [{ id: "m", object: "model" }] });
      if (path !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const parsed = (await req.json()) as Record<string, unknown>;
      bodies.push(parsed);
      if (refuses(parsed)) return new Response(body, { status, headers: { "content-type": "application/json" } });
      return new Response(OK, { headers: { "content-type": "text/event-stream" } });
    },
  });
  closers.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}/v1`, bodies };
}

const endpoint = (url: string, over: Partial<Endpoint> = {}): Endpoint => ({ name: "test", baseUrl: url, apiKey: null, ...over });
const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({ model: "m", messages: [{ role: "user", content: "hi" }], effort: "medium", ...over });
const retry = { retries: 0 };

async function run(e: Endpoint, r: ChatRequest, memo: MemoryRejectedFields): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of streamChat(e, r, { retry, rejectedFields: memo })) events.push(event);
  return events;
}
const textOf = (events: ModelEvent[]) => events.map((e) => (e.type === "text" ? e.delta : "")).join("");

describe("a field the server refuses", () => {
  test("stream_options (OpenAI's wording): sent again without it at once, said, and not sent again to that model", async () => {
    const server = refusing((b) => "stream_options" in b, 400, JSON.stringify({ error: { message: "Unrecognized request argument supplied: stream_options", type: "invalid_request_error" } }));
    const memo = new MemoryRejectedFields();
    const first = await run(endpoint(server.url), request(), memo);
    expect(textOf(first)).toBe("ok");
    expect(first.at(-1)).toEqual({ type: "finish", reason: "end_turn" });
    const notice = first.find((e) => e.type === "retry");
    expect(notice).toMatchObject({ type: "retry", delayMs: 0 });
    expect(notice?.type === "retry" && notice.error.message).toContain("sending it without stream_options");
    expect(server.bodies.map((b) => "stream_options" in b)).toEqual([true, false]);
    // Everything else of the request is kept.
    expect(server.bodies[1]).toMatchObject({ model: "m", stream: true, reasoning_effort: "medium" });

    await run(endpoint(server.url), request(), memo);
    expect(server.bodies.map((b) => "stream_options" in b)).toEqual([true, false, false]);
    // Another model of the same connection is asked as usual.
    await run(endpoint(server.url), request({ model: "other" }), memo);
    expect(server.bodies.map((b) => "stream_options" in b)).toEqual([true, false, false, true, false]);
  });

  test("reasoning_effort (Groq's wording) is dropped when the connection's `reasoning` is unset", async () => {
    const server = refusing((b) => "reasoning_effort" in b, 400, JSON.stringify({ error: { message: "`reasoning_effort` is not supported with this model", type: "invalid_request_error" } }));
    const memo = new MemoryRejectedFields();
    expect(textOf(await run(endpoint(server.url), request(), memo))).toBe("ok");
    expect(server.bodies.map((b) => b.reasoning_effort ?? null)).toEqual(["medium", null]);
  });

  test("reasoning: true sends reasoning_effort always and keeps it on a 400; reasoning: false never sends it", async () => {
    const server = refusing((b) => "reasoning_effort" in b, 400, JSON.stringify({ error: { message: "Unrecognized request argument supplied: reasoning_effort" } }));
    const memo = new MemoryRejectedFields();
    const pinned = await run(endpoint(server.url, { reasoning: true }), request(), memo);
    expect(pinned.at(-1)).toMatchObject({ type: "error", error: { kind: "bad_request" } });
    expect(server.bodies).toHaveLength(1);

    const never = await run(endpoint(server.url, { name: "other", reasoning: false }), request({ effort: "high" }), memo);
    expect(textOf(never)).toBe("ok");
    expect(server.bodies.slice(1).map((b) => "reasoning_effort" in b)).toEqual([false]);
  });

  test("max_tokens refused for max_completion_tokens (OpenAI's reasoning models) is sent under that name", async () => {
    const server = refusing(
      (b) => "max_tokens" in b,
      400,
      JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: "max_tokens" } }),
    );
    const memo = new MemoryRejectedFields();
    expect(textOf(await run(endpoint(server.url), request({ maxTokens: 500 }), memo))).toBe("ok");
    expect(server.bodies[1]).toMatchObject({ max_completion_tokens: 500 });
    expect("max_tokens" in (server.bodies[1] ?? {})).toBe(false);
  });

  test("reasoning_content on the messages (a 422 of extra inputs, Mistral's shape) is taken off them", async () => {
    const detail = { object: "error", message: { detail: [{ type: "extra_forbidden", loc: ["body", "messages", 1, "assistant", "reasoning_content"], msg: "Extra inputs are not permitted" }] }, type: "invalid_request_message_error" };
    const server = refusing((b) => JSON.stringify(b.messages).includes("reasoning_content"), 422, JSON.stringify(detail));
    const messages: ChatRequest["messages"] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, reasoning_content: "think", tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "x" },
    ];
    expect(textOf(await run(endpoint(server.url), request({ messages }), new MemoryRejectedFields()))).toBe("ok");
    expect(server.bodies[1]?.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "x" },
    ]);
  });

  test("a 400 about a value, or naming a field lembas did not send, is not retried", async () => {
    const tooLarge = refusing(() => true, 400, JSON.stringify({ error: { message: "'max_tokens' or 'max_completion_tokens' is too large: 9000. This model's maximum context length is 4096 tokens" } }));
    const a = await run(endpoint(tooLarge.url), request({ maxTokens: 9000 }), new MemoryRejectedFields());
    expect(a.at(-1)).toMatchObject({ type: "error", error: { kind: "bad_request" } });
    expect(tooLarge.bodies).toHaveLength(1);

    const other = refusing(() => true, 400, JSON.stringify({ error: { message: "Unrecognized request argument supplied: logit_bias" } }));
    const b = await run(endpoint(other.url), request(), new MemoryRejectedFields());
    expect(b.at(-1)).toMatchObject({ type: "error", error: { kind: "bad_request" } });
    expect(other.bodies).toHaveLength(1);
  });

  test("two refused fields in turn: each dropped once, then the reply", async () => {
    // The server words its refusal after the first field it finds.
    const bodies: Record<string, unknown>[] = [];
    const s = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const b = (await req.json()) as Record<string, unknown>;
        bodies.push(b);
        const bad = "stream_options" in b ? "stream_options" : "reasoning_effort" in b ? "reasoning_effort" : null;
        if (bad) return Response.json({ error: { message: `${bad}: Extra inputs are not permitted` } }, { status: 400 });
        return new Response(OK, { headers: { "content-type": "text/event-stream" } });
      },
    });
    closers.push(() => s.stop(true));
    const events = await run(endpoint(`http://127.0.0.1:${s.port}/v1`), request(), new MemoryRejectedFields());
    expect(textOf(events)).toBe("ok");
    expect(bodies.map((b) => ["stream_options" in b, "reasoning_effort" in b])).toEqual([
      [true, true],
      [false, true],
      [false, false],
    ]);
  });

  test("is kept by the model registry that resolved the model: its sessions' calls share it, another registry's (another engine's) ask afresh", async () => {
    const server = refusing((b) => "stream_options" in b, 400, JSON.stringify({ error: { message: "stream_options: Extra inputs are not permitted" } }));
    const config = Config.parse({ model: "c/m", connections: { c: { base_url: server.url } } });
    const call = async (registry: ModelRegistry): Promise<void> => {
      const model = await registry.resolve(null);
      for await (const _ of streamChat(model.endpoint, { model: model.servedId, messages: [{ role: "user", content: "hi" }], effort: "off" }, { retry, rejectedFields: model.rejectedFields })) {
        // read to the end
      }
    };
    const first = new ModelRegistry(config, [], {}, []);
    await call(first);
    await call(first);
    expect(server.bodies.map((b) => "stream_options" in b)).toEqual([true, false, false]);
    await call(new ModelRegistry(config, [], {}, []));
    expect(server.bodies.map((b) => "stream_options" in b)).toEqual([true, false, false, true, false]);
  });
});
