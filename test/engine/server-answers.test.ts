/**
 * The engine against the answers real model servers give: their quirks (Mistral's ids, Ollama's
 * <think> and text tool calls, refusals, refused fields, slow reasoning), a thinking model's title
 * call, context overflows and the compaction they call for, and Ollama's cached-prompt usage.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, ofType } from "../support/engine.ts";

/** A server that behaves like a real one, scripted per test: each chat request gets the next handler's answer. */
type Chat = (body: Record<string, unknown>, n: number) => Response | Promise<Response>;
type Fake = { url: string; bodies: Record<string, unknown>[]; close(): Promise<void> };

function fakeServer(opts: { models?: object; root?: (path: string, req: Request) => Response | Promise<Response> | null; chat: Chat }): Fake {
  const bodies: Record<string, unknown>[] = [];
  const server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/v1/models") return Response.json(opts.models ?? { object: "list", data: [{ id: "m", object: "model", owned_by: "someone" }] });
      if (path === "/v1/chat/completions") {
        const body = (await req.json()) as Record<string, unknown>;
        bodies.push(body);
        return opts.chat(body, bodies.length - 1);
      }
      const other = opts.root ? await opts.root(path, req) : null;
      return other ?? new Response("not found", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, bodies, close: async () => void server.stop(true) };
}

const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const sseBody = (events: (object | string)[]) => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
const sse = (events: (object | string)[]) => new Response(sseBody(events), { headers: { "content-type": "text/event-stream" } });
const textReply = (parts: string[], usage?: object) =>
  sse([chunk({ role: "assistant", content: "" }), ...parts.map((p) => chunk({ content: p })), chunk({}, "stop", usage ? { usage } : {}), "[DONE]"]);
const isStepBody = (b: Record<string, unknown>) => Array.isArray(b.tools) && b.tools.length > 0;
const isSummaryBody = (b: Record<string, unknown>) => !isStepBody(b) && JSON.stringify(b.messages).includes("You summarise a coding session");

let h: EngineHarness | null = null;
let fake: Fake | null = null;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = null;
  fake = null;
});

async function harnessOn(server: Fake, connection: Record<string, unknown> = {}) {
  return engineHarness({ config: { model: "x/m", connections: { x: { base_url: server.url, ...connection } } } });
}

describe("real servers' quirks together, through the engine", () => {
  test("Mistral-like (owned_by mistralai) with text_tool_calls: true: nine-character ids and no stream_options, a [TOOL_CALLS] call written as text runs", async () => {
    // docs.mistral.ai/capabilities/function_calling: ids of nine letters and digits, refused otherwise;
    // its API refuses fields it does not know with 422 "Extra inputs are not permitted". Its own API
    // parses calls (text is not read for them), so the connection says to: a call taken from the text
    // gets an id of lembas's own, which must be fitted to nine characters.
    fake = fakeServer({
      models: { object: "list", data: [{ id: "m", object: "model", owned_by: "mistralai" }] },
      chat: (body, n) => {
        if ("stream_options" in body) return Response.json({ object: "error", message: "Extra inputs are not permitted", type: "invalid_request_error" }, { status: 422 });
        for (const m of body.messages as { tool_call_id?: string; tool_calls?: { id: string }[] }[]) {
          const ids = [m.tool_call_id, ...(m.tool_calls ?? []).map((c) => c.id)].filter((x) => x !== undefined);
          if (ids.some((id) => !/^[a-zA-Z0-9]{9}$/.test(id))) return Response.json({ object: "error", message: "Tool call id has to be a-z, A-Z, 0-9, with a length of 9.", type: "invalid_request_error" }, { status: 400 });
        }
        if (n === 0) return textReply(["[TOOL_CALLS]", '[{"name": "write", "arguments": {"path": "a.txt", ', '"content": "hi\\n"}}]']);
        return textReply(["Wrote it."]);
      },
    });
    h = await harnessOn(fake, { text_tool_calls: true });
    const session = await h.session();
    const answer = await session.prompt({ text: "write a.txt" });
    const events = h.events(session);
    expect(ofType(events, "notice")).toEqual([]);
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("hi\n");
    expect(ofType(events, "text").map((e) => e.delta).join("")).toBe("Wrote it.");
  });

  test("Ollama-like: a <think> split over chunks (one naming <tool_call>), then a text tool call, runs the call and shows only the answer", async () => {
    fake = fakeServer({
      models: { object: "list", data: [{ id: "m", object: "model", owned_by: "library" }] },
      root: (path) =>
        path === "/" ? new Response("Ollama is running") : path === "/api/show" ? Response.json({ parameters: "num_ctx 4096", model_info: { "general.architecture": "qwen3", "qwen3.context_length": 40960 }, capabilities: ["completion", "tools"] }) : null,
      chat: (_body, n) => {
        if (n === 0) return textReply(["<thi", "nk>\nI should look at", " <tool_call> hmm. </thi", "nk>\n\n", '<tool_call>\n{"name": "read", "arguments": {"path": "b.txt"}}\n</tool_call>'], { prompt_tokens: 900, completion_tokens: 20 });
        return textReply(["It says hello."]);
      },
    });
    h = await harnessOn(fake);
    writeFileSync(join(h.project, "b.txt"), "hello\n");
    const session = await h.session();
    const answer = await session.prompt({ text: "what is in b.txt" });
    const events = h.events(session);
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(events, "tool_start").map((e) => e.name)).toEqual(["read"]);
    expect(ofType(events, "text").map((e) => e.delta).join("")).toBe("It says hello.");
    expect(ofType(events, "reasoning").map((e) => e.delta).join("")).toContain("I should look at");
  });

  test("a text tool call inside <think> does not run", async () => {
    fake = fakeServer({
      chat: () => textReply(['<think>Maybe <tool_call>{"name": "write", "arguments": {"path": "no.txt", "content": "x"}}</tool_call> no.</think>', "Nothing to do."]),
    });
    h = await harnessOn(fake);
    const session = await h.session();
    await session.prompt({ text: "go" });
    expect(existsSync(join(h.project, "no.txt"))).toBe(false);
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("Nothing to do.");
    expect(ofType(h.events(session), "tool_start")).toHaveLength(0);
  });

  test("a refusal that comes with a tool call ends the turn as refused, the call not made", async () => {
    fake = fakeServer({
      chat: () =>
        sse([
          chunk({ role: "assistant", refusal: "I can't help with that." }),
          chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write", arguments: '{"path":"r.txt","content":"x"}' } }] }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ]),
    });
    h = await harnessOn(fake);
    const session = await h.session();
    const answer = await session.prompt({ text: "go" });
    expect(answer).toMatchObject({ stopReason: "refusal" });
    expect(existsSync(join(h.project, "r.txt"))).toBe(false);
    expect(fake.bodies.filter(isStepBody)).toHaveLength(1);
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("I can't help with that.");
  });

  test("a refused field and then a 503: the field dropped at once, the 503 waited out, the reply arrives", async () => {
    fake = fakeServer({
      chat: (body, n) => {
        if ("stream_options" in body) return Response.json({ error: { message: "Unrecognized request argument supplied: stream_options" } }, { status: 400 });
        if (n < 2) return Response.json({ error: { message: "overloaded" } }, { status: 503 });
        return textReply(["fine"]);
      },
    });
    h = await harnessOn(fake);
    const session = await h.session();
    const answer = await session.prompt({ text: "go" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("fine");
    const steps = fake.bodies.filter(isStepBody);
    expect(steps.map((b) => "stream_options" in b)).toEqual([true, false, false]);
    const notices = ofType(h.events(session), "notice").map((e) => e.message);
    expect(notices[0]).toContain("sending it without stream_options");
    expect(notices[1]).toContain("HTTP 503");
  });

  test("reasoning for seconds under a one-second idle timeout: not given up while bytes come, and cancellable", async () => {
    let forever = false;
    fake = fakeServer({
      chat: (body) => {
        if (!isStepBody(body)) return textReply(["A title"]);
        let i = 0;
        const stream = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await Bun.sleep(100);
            i++;
            if (i > 25 && !forever) {
              controller.enqueue(new TextEncoder().encode(sseBody([chunk({ content: "done" }, "stop"), "[DONE]"])));
              controller.close();
              return;
            }
            controller.enqueue(new TextEncoder().encode(sseBody([chunk({ reasoning_content: `step ${i}. ` })])));
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      },
    });
    h = await harnessOn(fake, { idle_timeout: 1 });
    const session = await h.session();
    const answer = await session.prompt({ text: "go" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("done");

    forever = true;
    const turn = session.prompt({ text: "again" });
    await Bun.sleep(1500);
    session.cancel();
    // The reasoning never ends: a turn the cancel did not stop would time the test out.
    expect(await turn).toMatchObject({ stopReason: "cancelled" });
  }, 15000);
});

const overflowAnswer = () =>
  Response.json(
    { error: { message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.", type: "invalid_request_error", code: "context_length_exceeded" } },
    { status: 400 },
  );

test("a thinking model's title call does not hold the person's next prompt: it gives way, the provisional title stays", async () => {
  // A reasoning model (DeepSeek-R1, Qwen3 through Ollama) thinks before it names the session too.
  fake = fakeServer({
    chat: (body) => {
      if (isStepBody(body)) return textReply(["answer"]);
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await Bun.sleep(100);
          controller.enqueue(new TextEncoder().encode(sseBody([chunk({ reasoning_content: "Hmm, a title. " })])));
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  h = await harnessOn(fake);
  const session = await h.session();
  await session.prompt({ text: "fix the parser" });
  await Bun.sleep(300); // the title call is thinking
  expect(fake.bodies.filter((b) => !isStepBody(b))).toHaveLength(1);
  // The title call thinks forever (cut only by its own 30 s limit): a prompt that waited for it would time the test out.
  const second = await session.prompt({ text: "and the lexer" });
  expect(second).toMatchObject({ stopReason: "end_turn" });
  expect(session.title).toBe("fix the parser");
}, 20000);

describe("context overflow and compaction against real servers' answers", () => {
  test("the running step's one tool output larger than the window: sent cut (said once), the turn goes on, the store keeps it whole", async () => {
    fake = fakeServer({
      chat: (body, n) => {
        // A 4096-token window, OpenAI's wording: a request beyond it is refused.
        if (JSON.stringify(body.messages).length > 4096 * 3.5) return overflowAnswer();
        if (isSummaryBody(body)) return textReply(["A summary."]);
        if (!isStepBody(body)) return textReply(["title"]);
        if (n === 0) return sse([chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"big.txt"}' } }] }), chunk({}, "tool_calls"), "[DONE]"]);
        return textReply(["It is big."]);
      },
    });
    h = await harnessOn(fake, { context: 4096 });
    writeFileSync(join(h.project, "big.txt"), Array.from({ length: 1500 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n"));
    const session = await h.session();
    const answer = await session.prompt({ text: "read big.txt" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("It is big.");
    const notices = ofType(h.events(session), "notice").map((e) => e.message);
    expect(notices.filter((m) => m.includes("the output of read is too long for the window of x/m (4096 tokens)"))).toHaveLength(1);
    const last = fake.bodies.filter(isStepBody).at(-1);
    const sent = (last?.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool");
    expect(String(sent?.content)).toContain("characters of this output left out");
    const stored = session.messages().find((m) => m.role === "tool");
    expect(stored?.role === "tool" && stored.body.output.length).toBeGreaterThan(29_000);
  });

  test("the server names a smaller window than lembas assumed, and the step's own tool output does not fit it: cut, sent again once, answered", async () => {
    fake = fakeServer({
      chat: (body, n) => {
        if (JSON.stringify(body.messages).length > 4096 * 3.5) return overflowAnswer();
        if (isSummaryBody(body)) return textReply(["A summary."]);
        if (!isStepBody(body)) return textReply(["title"]);
        if (n === 0) return sse([chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"big.txt"}' } }] }), chunk({}, "tool_calls"), "[DONE]"]);
        return textReply(["It is big."]);
      },
    });
    h = await harnessOn(fake);
    writeFileSync(join(h.project, "big.txt"), Array.from({ length: 1500 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n"));
    const session = await h.session();
    const answer = await session.prompt({ text: "read big.txt" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("It is big.");
  });

  test("an overflow inside a 200 stream after text was shown: the text kept, the window named, and the next turn compacts before its request", async () => {
    // llama.cpp's in-stream error when the window fills mid-reply (server README, exceed_context_size_error).
    let turn = 0;
    fake = fakeServer({
      chat: (body) => {
        if (isSummaryBody(body)) return textReply(["A summary."]);
        if (!isStepBody(body)) return textReply(["title"]);
        turn++;
        if (turn === 1) return textReply(["Earlier answer."]);
        if (turn === 2)
          return new Response(
            sseBody([chunk({ role: "assistant", content: "Partial " }), chunk({ content: "answer" })]) +
              `error: ${JSON.stringify({ code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" })}\n\n`,
            { headers: { "content-type": "text/event-stream" } },
          );
        return textReply(["Fresh."]);
      },
    });
    h = await harnessOn(fake);
    const session = await h.session();
    await session.prompt({ text: "one" });
    const answer = await session.prompt({ text: "two" });
    expect(answer.error).toContain("exceeds the available context size");
    expect(answer.error).toContain("filled the model's window");
    expect(answer.error).toContain("what arrived is kept");
    expect(fake.bodies.filter(isStepBody)).toHaveLength(2);
    expect(ofType(h.events(session), "notice").map((e) => e.message)).toContain("the conversation filled the window of x/m: the history is compacted before the next request");
    const kept = session.messages().filter((m) => m.role === "assistant");
    expect(kept.at(-1)?.role === "assistant" && kept.at(-1)?.body.text).toBe("Partial answer");

    const before = fake.bodies.length;
    const third = await session.prompt({ text: "three" });
    expect(third).toMatchObject({ stopReason: "end_turn" });
    const kinds = fake.bodies.slice(before).map((b) => (isSummaryBody(b) ? "summary" : isStepBody(b) ? "step" : "other"));
    expect(kinds).toEqual(["summary", "step"]);
  });

  test("a 429 with Retry-After, then an overflow in the same turn, then a summary call that gets a 429: waited, compacted, answered", async () => {
    let phase = 0;
    fake = fakeServer({
      chat: (body) => {
        if (!isStepBody(body) && !isSummaryBody(body)) return textReply(["title"]);
        if (phase === 0) {
          phase = 1;
          return textReply(["first answer"]);
        }
        if (phase === 1) {
          phase = 2;
          return Response.json({ error: { message: "Rate limit reached" } }, { status: 429, headers: { "retry-after": "1" } });
        }
        if (phase === 2) {
          phase = 3;
          return Response.json({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } }, { status: 400 });
        }
        if (phase === 3 && isSummaryBody(body)) {
          phase = 4;
          return Response.json({ error: { message: "Rate limit reached" } }, { status: 429, headers: { "retry-after": "1" } });
        }
        if (isSummaryBody(body)) return textReply(["A summary."]);
        return textReply(["second answer"]);
      },
    });
    h = await harnessOn(fake);
    const session = await h.session();
    await session.prompt({ text: "one" });
    const answer = await session.prompt({ text: "two" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "compacted")).toHaveLength(1);
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("first answersecond answer");
  }, 20000);
});

describe("an Ollama whose usage counts only what its prompt cache did not hold", () => {
  // ollama/ollama#3427 and #16428: prompt_eval_count (usage.prompt_tokens) left out cached tokens.
  const ollama = (usage: (n: number) => number) =>
    fakeServer({
      models: { object: "list", data: [{ id: "m", object: "model", owned_by: "library" }] },
      root: (path) => (path === "/" ? new Response("Ollama is running") : null),
      chat: (body, n) => {
        if (isSummaryBody(body)) return textReply(["A summary."]);
        if (!isStepBody(body)) return textReply(["title"]);
        if (n < 2) return sse([chunk({ tool_calls: [{ index: 0, id: `call_${n}`, type: "function", function: { name: "read", arguments: '{"path":"big.txt"}' } }] }), chunk({}, "tool_calls", { usage: { prompt_tokens: usage(n), completion_tokens: 5 } }), "[DONE]"]);
        return textReply(["done"], { prompt_tokens: usage(n), completion_tokens: 5 });
      },
    });

  test("a first request whose system prompt was cached (a few dozen tokens read) is not a cut prompt: nothing is compacted", async () => {
    fake = ollama(() => 40);
    h = await harnessOn(fake);
    writeFileSync(join(h.project, "big.txt"), "small\n");
    const session = await h.session();
    await session.prompt({ text: "read big.txt" });
    expect(ofType(h.events(session), "notice").map((e) => e.message).filter((m) => m.includes("read only"))).toEqual([]);
    expect(ofType(h.events(session), "compacted")).toHaveLength(0);
    expect(fake.bodies.filter(isSummaryBody)).toHaveLength(0);
  });

  test("such a reading is not taken for the request's size: the estimate decides when to compact", async () => {
    fake = ollama(() => 40);
    h = await harnessOn(fake, { context: 8192 });
    writeFileSync(join(h.project, "big.txt"), Array.from({ length: 800 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n"));
    const session = await h.session();
    await session.prompt({ text: "read big.txt" });
    const kinds = fake.bodies.map((b) => (isSummaryBody(b) ? "summary" : isStepBody(b) ? "step" : "other"));
    expect(kinds.slice(0, 3)).toEqual(["step", "summary", "step"]);
  });

  test("a reading that falls as the request grows (the new tool output alone) is not a cut either", async () => {
    fake = ollama((n) => [3_000, 2_600, 2_300][n] ?? 2_000);
    h = await harnessOn(fake);
    writeFileSync(join(h.project, "big.txt"), "x".repeat(30_000));
    const session = await h.session();
    await session.prompt({ text: "read big.txt" });
    expect(ofType(h.events(session), "notice").map((e) => e.message).filter((m) => m.includes("read only"))).toEqual([]);
    expect(fake.bodies.filter(isSummaryBody)).toHaveLength(0);
  });
});
