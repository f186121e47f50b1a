import { afterEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { lastUserText, startModel, type ScriptedModel } from "./model.ts";

const Chunk = z.looseObject({
  object: z.literal("chat.completion.chunk"),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      delta: z.looseObject({
        role: z.string().optional(),
        content: z.string().nullish(),
        reasoning_content: z.string().optional(),
        reasoning: z.string().optional(),
        tool_calls: z
          .array(
            z.looseObject({
              index: z.number(),
              id: z.string().optional(),
              type: z.string().optional(),
              function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }),
            }),
          )
          .optional(),
      }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).nullish(),
});
type Chunk = z.infer<typeof Chunk>;

let model: ScriptedModel;
afterEach(async () => {
  await model.close();
});

function chat(body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${model.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ model: "test-model", messages: [{ role: "user", content: "hi" }], ...body }),
    ...init,
  });
}

/** Reads an SSE body to its end: the `data:` payloads, in order. */
async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}

function chunks(data: string[]): Chunk[] {
  return data.filter((d) => d !== "[DONE]").map((d) => Chunk.parse(JSON.parse(d)));
}

function joined(list: Chunk[], pick: (c: Chunk["choices"][number]["delta"]) => string | null | undefined): string {
  return list.map((c) => pick(c.choices[0]?.delta ?? {}) ?? "").join("");
}

describe("GET /v1/models", () => {
  test("lists one model by default, then the ones set", async () => {
    model = await startModel();
    expect(model.url).toBe(`http://127.0.0.1:${model.port}/v1`);
    const first = await (await fetch(`${model.url}/models`)).json();
    expect(first).toMatchObject({ object: "list", data: [{ id: "test-model", object: "model" }] });
    model.setModels([{ id: "deepseek/flash", kind: "chat", provider: "deepseek", context_length: 64000, extra: 1 }, { id: "embed", kind: "embedding" }]);
    const second = await (await fetch(`${model.url}/models`)).json();
    expect(second).toMatchObject({
      data: [{ id: "deepseek/flash", kind: "chat", provider: "deepseek", context_length: 64000, extra: 1 }, { id: "embed", kind: "embedding" }],
    });
    expect(model.requests).toHaveLength(0);
  });
});

describe("streaming", () => {
  test("text, tool call deltas and usage, as OpenAI sends them", async () => {
    model = await startModel({
      replies: [
        {
          text: "Let me look.",
          toolCalls: [
            { id: "call_a", name: "read", arguments: { path: "src/index.ts" }, chunks: 3 },
            { name: "glob", arguments: '{"pattern":"*.ts"}' },
          ],
          usage: { prompt_tokens: 12, completion_tokens: 7 },
        },
      ],
    });
    const res = await chat({ stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const data = await sseData(res);
    expect(data.at(-1)).toBe("[DONE]");
    const list = chunks(data);
    expect(list[0]?.choices[0]?.delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(joined(list, (d) => d.content)).toBe("Let me look.");
    expect(list.filter((c) => c.choices[0]?.delta.content).length).toBe(3); // split at word starts

    const calls = list.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: "call_a", type: "function", function: { name: "read", arguments: "" } });
    const firstArgs = calls.filter((c) => c.index === 0 && c.id === undefined);
    expect(firstArgs).toHaveLength(3);
    expect(firstArgs.map((c) => c.function.arguments).join("")).toBe('{"path":"src/index.ts"}');
    const second = calls.filter((c) => c.index === 1);
    expect(second[0]).toMatchObject({ id: "call_1", type: "function", function: { name: "glob" } });
    expect(second.map((c) => c.function.arguments ?? "").join("")).toBe('{"pattern":"*.ts"}');

    const finish = list.at(-2);
    expect(finish?.choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect(finish?.usage).toBeNull();
    const usage = list.at(-1);
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage).toEqual({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });

    const [req] = await model.waitForRequests(1);
    expect(req?.authorization).toBe("Bearer sk-test");
    expect(req?.body.stream).toBe(true);
    expect(req?.body.messages?.[0]?.content).toBe("hi");
    expect(req?.headers.get("content-type")).toBe("application/json");
  });

  test("exact chunks, reasoning first, the reasoning field, no usage unless asked", async () => {
    model = await startModel({
      replies: [
        { reasoning: ["Think", "ing"], text: ["a", "", "b"] },
        { reasoning: "hmm", reasoningField: "reasoning", text: "x" },
      ],
    });
    const first = chunks(await sseData(await chat({ stream: true })));
    expect(first.map((c) => c.choices[0]?.delta.reasoning_content).filter((r) => r !== undefined)).toEqual(["Think", "ing"]);
    expect(first.map((c) => c.choices[0]?.delta.content).slice(3, 6)).toEqual(["a", "", "b"]);
    expect(first.some((c) => "usage" in c)).toBe(false);
    expect(first.at(-1)?.choices[0]?.finish_reason).toBe("stop");

    const second = chunks(await sseData(await chat({ stream: true })));
    expect(joined(second, (d) => d.reasoning)).toBe("hmm");
    expect(joined(second, (d) => d.reasoning_content)).toBe("");
  });

  test("20,000 chunks stream and parse whole", async () => {
    const pieces = Array.from({ length: 20_000 }, (_, i) => `t${i % 10}`);
    model = await startModel({ replies: [{ text: pieces }] });
    const res = await chat({ stream: true });
    const decoder = new TextDecoder();
    let buffer = "";
    let content = 0;
    let done = false;
    for await (const bytes of res.body ?? []) {
      buffer += decoder.decode(bytes, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const data = buffer.slice(6, end);
        buffer = buffer.slice(end + 2);
        if (data === "[DONE]") done = true;
        else if (Chunk.parse(JSON.parse(data)).choices[0]?.delta.content) content++;
        end = buffer.indexOf("\n\n");
      }
    }
    expect(done).toBe(true);
    expect(content).toBe(20_000);
  });

  test("stops quietly when the client goes away mid-stream", async () => {
    model = await startModel({ replies: [{ text: Array.from({ length: 1000 }, () => "x"), chunkDelayMs: 5 }] });
    const abort = new AbortController();
    const res = await chat({ stream: true }, { signal: abort.signal });
    const reader = res.body?.getReader();
    await reader?.read();
    abort.abort();
    await expect(reader?.read()).rejects.toThrow();
    // the server still answers the next request
    expect(chunks(await sseData(await chat({ stream: true })))[1]?.choices[0]?.delta.content).toBe("ok");
  });
});

describe("replies", () => {
  test("match picks a queued reply, others wait; the fallback answers when none fits", async () => {
    model = await startModel({ fallback: { text: "fallback" } });
    model.push({ text: "for b", match: (b) => lastUserText(b) === "b" }, { text: "any" });
    const answer = async (content: string): Promise<unknown> => {
      const res = await chat({ messages: [{ role: "user", content: [{ type: "text", text: content }] }] });
      const Completion = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })) });
      return Completion.parse(await res.json()).choices[0]?.message.content;
    };
    expect(await answer("a")).toBe("any");
    expect(model.pending()).toBe(1);
    expect(await answer("c")).toBe("fallback");
    expect(await answer("b")).toBe("for b");
    expect(await answer("b")).toBe("fallback");
    expect(model.pending()).toBe(0);
  });

  test("a non-streamed answer is one chat.completion", async () => {
    model = await startModel({
      replies: [{ text: "hi there", reasoning: "r", toolCalls: [{ name: "bash", arguments: { command: "ls" } }], finishReason: "length" }],
    });
    const body = await (await chat({})).json();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "test-model",
      choices: [
        {
          index: 0,
          finish_reason: "length",
          message: {
            role: "assistant",
            content: "hi there",
            reasoning_content: "r",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
  });

  test("an invalid body is refused with 400 and recorded", async () => {
    model = await startModel();
    const res = await fetch(`${model.url}/chat/completions`, { method: "POST", body: "{nope" });
    expect(res.status).toBe(400);
    expect((await model.waitForRequests(1))[0]?.invalid).toBe("the body is not JSON");
    expect((await fetch(`${model.url}/nothing`)).status).toBe(404);
  });

  test("waitForRequests fails with a sentence on timeout", async () => {
    model = await startModel();
    await expect(model.waitForRequests(1, 50)).rejects.toThrow("timed out after 50 ms waiting for 1 chat completion request(s) (got 0)");
  });
});

describe("failures", () => {
  test("HTTP errors with Retry-After, failTimes times, then the reply", async () => {
    model = await startModel({ replies: [{ text: "finally", fail: { status: 429, retryAfter: 2 }, failTimes: 2 }] });
    for (let i = 0; i < 2; i++) {
      const res = await chat({ stream: true });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(await res.json()).toMatchObject({ error: { code: 429 } });
    }
    expect(joined(chunks(await sseData(await chat({ stream: true }))), (d) => d.content)).toBe("finally");
    expect(model.requests).toHaveLength(3);
    expect(model.pending()).toBe(0);
  });

  test("a failing reply without failTimes fails once; a custom body is sent as is", async () => {
    model = await startModel({ replies: [{ fail: { status: 500, body: "upstream broke" } }] });
    const res = await chat({});
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("upstream broke");
    expect((await chat({})).status).toBe(200);
  });

  test("cut: some chunks, then the connection is reset without [DONE]", async () => {
    model = await startModel({ replies: [{ text: "one two three four", fail: "cut" }] });
    const res = await chat({ stream: true });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let error: unknown = null;
    try {
      for (;;) {
        const { done, value } = (await reader?.read()) ?? { done: true, value: undefined };
        if (done) break;
        text += decoder.decode(value);
      }
    } catch (e) {
      error = e;
    }
    expect(error).not.toBeNull();
    expect(text).toContain('"content":"one"');
    expect(text).not.toContain("[DONE]");
    expect(text).not.toContain("finish_reason\":\"stop");
  });

  test("malformed: a data line of invalid JSON mid-stream", async () => {
    model = await startModel({ replies: [{ text: "one two three", fail: "malformed" }] });
    const data = await sseData(await chat({ stream: true }));
    const bad = data.filter((d) => {
      try {
        JSON.parse(d);
        return false;
      } catch {
        return d !== "[DONE]";
      }
    });
    expect(bad).toHaveLength(1);
    expect(data.indexOf(bad[0] ?? "")).toBeGreaterThan(0);
    expect(data.at(-1)).toBe("[DONE]");
  });

  test("hang: headers, then nothing until the client aborts; close() still returns", async () => {
    model = await startModel({ replies: [{ fail: "hang" }, { fail: "hang" }] });
    const abort = new AbortController();
    const res = await chat({ stream: true }, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toStartWith(":");
    const stalled = await Promise.race([reader?.read().then(() => "data"), Bun.sleep(100).then(() => "stalled")]);
    expect(stalled).toBe("stalled");
    abort.abort();
    // a second hanging request left open: close() must end it
    const open = await chat({});
    expect(open.status).toBe(200);
    const pending = open.text().catch(() => "reset");
    await model.close();
    expect(await pending).not.toContain("chat.completion");
  });
});
