import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, isStep, isSummary, ofType, step } from "../support/engine.ts";
import { type ChatRequest, contentText } from "../support/model.ts";

// A context overflow, as each server family words it (the sources are named in src/model/overflow.ts).
const OVERFLOWS: [string, number, string][] = [
  [
    "OpenAI",
    400,
    JSON.stringify({
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
  ],
  [
    "OpenAI, by its code",
    400,
    JSON.stringify({ error: { message: "Your request was rejected.", type: "invalid_request_error", code: "context_length_exceeded" } }),
  ],
  [
    "vLLM",
    400,
    JSON.stringify({
      object: "error",
      message: "This model's maximum context length is 4096 tokens. However, you requested 4130 tokens (3130 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  ],
  [
    "llama.cpp",
    400,
    JSON.stringify({
      error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 4476, n_ctx: 4096 },
    }),
  ],
  ["older llama.cpp, with a 500", 500, JSON.stringify({ error: { code: 500, message: "the request exceeds the available context size, try increasing it", type: "server_error" } })],
  ["Anthropic", 400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" } })],
  [
    "Gemini",
    400,
    JSON.stringify([{ error: { code: 400, message: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", status: "INVALID_ARGUMENT" } }]),
  ],
  [
    "Mistral",
    400,
    JSON.stringify({
      object: "error",
      message: "Prompt contains 40011 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
      type: "invalid_request_message_error",
      code: "3051",
    }),
  ],
  ["Groq", 400, JSON.stringify({ error: { message: "Please reduce the length of the messages or completion.", type: "invalid_request_error", param: "messages" } })],
  [
    "OpenRouter",
    400,
    JSON.stringify({
      error: {
        message: "This endpoint's maximum context length is 131072 tokens. However, you requested about 132463 tokens (1463 of text input, 131000 in the output). Please reduce the length of either one.",
        code: 400,
      },
    }),
  ],
  [
    "LM Studio",
    400,
    JSON.stringify({ error: "The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input" }),
  ],
];

const tokensOf = (body: ChatRequest) => JSON.stringify(body.messages ?? []).length / 3.5 + JSON.stringify(body.tools ?? []).length / 3.5;
const textOf = (body: ChatRequest) => (body.messages ?? []).map((m) => contentText(m.content)).join("\n");
const words = (n: number, word = "history") => Array.from({ length: n }, (_, i) => `${word}${i}`).join(" ");

let h: EngineHarness;
afterEach(() => h.close());

describe("a server's context overflow", () => {
  test.each(OVERFLOWS)("%s: the history is compacted and the step sent once more", async (_name, status, body) => {
    h = await engineHarness();
    h.model.push(step({ text: "first answer" }));
    const session = await h.session();
    await session.prompt({ text: "first question" });
    await session.idle();
    h.model.push(step({ text: "recovered", fail: { status, body }, failTimes: 1 }), { match: isSummary, text: "SUMMARY: a first question." });
    const before = h.model.requests.length;
    const answer = await session.prompt({ text: "second question" });
    expect(answer.error).toBeUndefined();
    expect(answer.stopReason).toBe("end_turn");
    const sent = h.model.requests.slice(before).map((r) => r.body);
    expect(sent.map((b) => (isSummary(b) ? "summary" : isStep(b) ? "step" : "other"))).toEqual(["step", "summary", "step"]);
    expect(ofType(h.events(session), "compacted")).toEqual([{ type: "compacted", summary: "SUMMARY: a first question.", auto: true }]);
    const retried = textOf(sent[2] ?? {});
    expect(retried).toContain("SUMMARY: a first question.");
    expect(retried).toContain("second question");
    expect(retried).not.toContain("first answer");
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toContain("recovered");
  });

  test("the window the server names is the one the summary is made to fit, not the assumed one", async () => {
    h = await engineHarness();
    const session = await h.session();
    for (let turn = 0; turn < 4; turn++) {
      h.model.push(step({ text: `answer ${turn}` }));
      await session.prompt({ text: words(1_500, `turn${turn}x`) });
      await session.idle();
    }
    const fits = (b: ChatRequest) => tokensOf(b) < 8_192;
    h.model.push(
      step({ text: "recovered", fail: { status: 400, body: OVERFLOWS[0]?.[2] ?? "" }, failTimes: 1 }),
      { match: (b) => isSummary(b) && !fits(b), text: "", fail: { status: 400, body: OVERFLOWS[0]?.[2] ?? "" }, failTimes: 100 },
    );
    for (let i = 1; i <= 5; i++) h.model.push({ match: (b) => isSummary(b) && fits(b), text: `SUMMARY part ${i}` });
    const before = h.model.requests.length;
    const answer = await session.prompt({ text: "go on" });
    expect(answer.error).toBeUndefined();
    const summaries = h.model.requests.slice(before).filter((r) => isSummary(r.body));
    expect(summaries.length).toBeGreaterThan(1);
    for (const r of summaries) expect(fits(r.body)).toBe(true);
  });

  test("an overflow with nothing left to compact ends the turn with a sentence, sent once more at most", async () => {
    h = await engineHarness();
    h.model.push(step({ text: "never", fail: { status: 400, body: OVERFLOWS[0]?.[2] ?? "" }, failTimes: 5 }));
    const session = await h.session();
    const answer = await session.prompt({ text: "only question" });
    expect(answer.error).toMatch(/too long for the model.*maximum context length is 8192 tokens.*nothing older than this step is left to compact/);
    expect(h.model.requests.filter((r) => isStep(r.body)).length).toBe(1);
  });

  test("a request refused for another reason is no overflow: nothing is compacted", async () => {
    h = await engineHarness();
    h.model.push(step({ text: "first answer" }));
    const session = await h.session();
    await session.prompt({ text: "first question" });
    await session.idle();
    h.model.push(step({ text: "never", fail: { status: 400, body: JSON.stringify({ error: { message: "Invalid schema for function 'bash'" } }) } }));
    const answer = await session.prompt({ text: "second question" });
    expect(answer.error).toMatch(/rejected the request.*Invalid schema/);
    expect(h.model.requests.some((r) => isSummary(r.body))).toBe(false);
  });
});

describe("compaction from the window", () => {
  test("with no usage reported, the request is estimated and the history compacted before it fills the window", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 20_000 }] });
    // About 11 000 tokens of the person's text, and about 5 000 of system prompt and tools.
    h.model.push(step({ text: "read it", usage: null }));
    const session = await h.session();
    await session.prompt({ text: words(4_000) });
    await session.idle();
    expect(ofType(h.events(session), "compacted")).toEqual([]);
    h.model.push({ match: isSummary, text: "SUMMARY: a long text was read.", usage: null }, step({ text: "continuing", usage: null }));
    const answer = await session.prompt({ text: "and now?" });
    expect(answer.error).toBeUndefined();
    expect(ofType(h.events(session), "usage")).toEqual([]);
    expect(ofType(h.events(session), "compacted")[0]).toMatchObject({ auto: true, summary: "SUMMARY: a long text was read." });
    const last = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body ?? {};
    expect(textOf(last)).toContain("SUMMARY: a long text was read.");
    expect(textOf(last)).not.toContain("history3999");
    expect(tokensOf(last)).toBeLessThan(20_000 * 0.8);
  });

  test("after a compaction mid-turn the next request holds the turn's task, its last tool result and the todo list", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 20_000 }] });
    writeFileSync(join(h.project, "parser.txt"), "RESULT-MARKER: the parser drops the last token\n");
    h.model.push(step({ text: "earlier answer" }));
    const session = await h.session();
    await session.prompt({ text: "earlier work" });
    await session.idle();
    h.model.push(
      step({ toolCalls: [{ name: "todo", arguments: { todos: [{ content: "TODO-MARKER read the parser", status: "in_progress" }] } }], usage: { prompt_tokens: 6_000, completion_tokens: 5 } }),
      step({ toolCalls: [{ name: "read", arguments: { path: "parser.txt" } }], usage: { prompt_tokens: 17_000, completion_tokens: 5 } }),
      { match: isSummary, text: "SUMMARY: earlier work; a todo list was made." },
      step({ text: "fixed it" }),
    );
    const answer = await session.prompt({ text: "TASK-MARKER: fix the parser" });
    expect(answer.error).toBeUndefined();
    expect(ofType(h.events(session), "compacted")).toHaveLength(1);
    const last = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body ?? {};
    const text = textOf(last);
    expect(text).toContain("SUMMARY: earlier work; a todo list was made.");
    expect(text).toContain("TASK-MARKER: fix the parser");
    expect(text).toContain("TODO-MARKER read the parser");
    expect(text).not.toContain("earlier answer");
    // The last tool result is still a tool message, answering the call before it.
    const messages = last.messages ?? [];
    const result = messages.find((m) => m.role === "tool" && contentText(m.content).includes("RESULT-MARKER"));
    expect(result).toBeDefined();
    const callIndex = messages.findIndex((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
    expect(callIndex).toBeGreaterThan(0);
    expect(messages.indexOf(result ?? messages[0]!)).toBeGreaterThan(callIndex);
  });

  test("the summary is made from the model's reasoning too, so that its why survives a compaction", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 100_000 }] });
    writeFileSync(join(h.project, "a.txt"), "alpha\n");
    h.model.push(
      step({ reasoning: "REASONING-MARKER: the bug must be in a.txt because the log names it", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ reasoning: "ANSWER-REASONING: it reads alpha", text: "a.txt says alpha" }),
    );
    const session = await h.session();
    await session.prompt({ text: "find the bug" });
    await session.idle();
    h.model.push({ match: isSummary, text: "SUMMARY: looked at a.txt." });
    await session.compact();
    const summaryRequest = h.model.requests.find((r) => isSummary(r.body))?.body ?? {};
    const text = textOf(summaryRequest);
    expect(text).toContain("REASONING-MARKER: the bug must be in a.txt because the log names it");
    expect(text).toContain("ANSWER-REASONING: it reads alpha");
    expect(text).toContain("a.txt says alpha");
  });

  test("/compact of a history larger than the window: no summary request overflows it", async () => {
    const window = 12_000;
    h = await engineHarness({ models: [{ id: "test-model", context_length: 1_000_000 }, { id: "small", context_length: window }] });
    writeFileSync(join(h.project, "big.txt"), `${words(3_000, "output")}\n`);
    const session = await h.session();
    for (let turn = 0; turn < 3; turn++) {
      h.model.push(step({ text: `answer ${turn}` }));
      await session.prompt({ text: words(1_500, `turn${turn}x`) });
      await session.idle();
    }
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }] }), step({ text: "read the file" }));
    await session.prompt({ text: "read big.txt" });
    await session.idle();
    await session.configure({ model: "test/small" });
    // As a real server would: a summary request longer than the window is refused.
    const fits = (b: ChatRequest) => tokensOf(b) < window;
    h.model.push({ match: (b) => isSummary(b) && !fits(b), text: "", fail: { status: 400, body: OVERFLOWS[0]?.[2] ?? "" }, failTimes: 100 });
    for (let i = 1; i <= 5; i++) h.model.push({ match: (b) => isSummary(b) && fits(b), text: `SUMMARY part ${i}` });
    const before = h.model.requests.length;
    const { summary } = await session.compact();
    const summaries = h.model.requests.slice(before).map((r) => r.body);
    expect(summaries.length).toBeGreaterThan(1);
    for (const body of summaries) expect(tokensOf(body)).toBeLessThan(window);
    expect(summary).toBe(`SUMMARY part ${summaries.length}`);
    // Each part is summarised over the summary of the parts before it.
    expect(textOf(summaries[1] ?? {})).toContain("SUMMARY part 1");
    expect(textOf(summaries.at(-1) ?? {})).toContain("read big.txt");
  });
});
