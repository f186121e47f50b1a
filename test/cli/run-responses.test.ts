// `lembas run` on a connection that speaks OpenAI's Responses API, against the scripted model's
// /v1/responses (test/support/responses-server.ts): what lembas sent, and what it showed.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FixtureRoute, type RecordedBody, type Replay } from "../support/fixture-route.ts";
import { startModel, type ScriptedModel } from "../support/model.ts";
import { answer, openAiErrorBody, responsesRoute } from "../support/responses-server.ts";
import { type ProjectSandbox, projectSandbox, runInProject } from "../support/run.ts";
import { created, ev, functionCall } from "../model/fixtures/responses/streams.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
let route: FixtureRoute;

/** A step of the turn: a request offering function tools (a side call offers none). */
const isStep = (body: RecordedBody) => Array.isArray(body.tools) && body.tools.some((t: { type?: string }) => t.type === "function");
const isSummary = (body: RecordedBody) => !isStep(body) && String(body.instructions ?? "").includes("You summarise a coding session");
const isSearch = (body: RecordedBody) => JSON.stringify(body.tools ?? []) === JSON.stringify([{ type: "web_search" }]);
const step = (body: string, extra: Partial<Replay> = {}): Replay => ({ body, match: isStep, ...extra }) as Replay;
const steps = () => route.requests.filter((r) => isStep(r.body)).map((r) => r.body);

beforeEach(async () => {
  // Side calls (the session's title) take the fallback.
  route = responsesRoute([], { body: answer({ text: "A title" }) });
  model = await startModel({ routes: [route] });
  box = projectSandbox(model.url);
  config("");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

function config(extra: string, api = "responses"): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    api: ${api}\n${extra}`);
}

type Event = { type: string; [key: string]: unknown };
async function run(args: string[]): Promise<{ code: number; events: Event[]; stdout: string; stderr: string }> {
  const result = await runInProject(box, args);
  const json = args.includes("json");
  const events = json ? result.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Event) : [];
  return { ...result, events };
}

describe("a Responses connection", () => {
  test("a tool turn: the second step sends the reasoning item back with its encrypted content, before its call and the call's output", async () => {
    writeFileSync(join(box.project, "notes.txt"), "NOTES: ship on friday\n");
    route.push(
      step(answer({ reasoning: { summary: "Read the notes first.", encrypted: "gAAAAB-enc-1" }, calls: [{ id: "call_r1", name: "read", arguments: { path: "notes.txt" } }], usage: { input: 1000, output: 50, cached: 800, reasoning: 30 } })),
      step(answer({ text: "They say: ship on friday.", usage: { input: 1100, output: 10, cached: 1000 } })),
    );
    const { code, events } = await run(["--format", "json", "what do the notes say?"]);
    expect(code).toBe(0);
    const [first, second] = steps();
    expect(first).toMatchObject({ model: "test-model", stream: true, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "medium", summary: "auto" } });
    expect(String(first?.instructions)).toContain("lembas");
    expect((first?.tools as { type: string; name?: string }[]).some((t) => t.type === "function" && t.name === "read")).toBe(true);
    const input = second?.input as Record<string, unknown>[];
    const at = input.findIndex((item) => item.type === "reasoning");
    expect(input[at]).toEqual({ id: "rs_0", type: "reasoning", summary: [{ type: "summary_text", text: "Read the notes first." }], encrypted_content: "gAAAAB-enc-1" });
    expect(input[at + 1]).toEqual({ type: "function_call", call_id: "call_r1", name: "read", arguments: '{"path":"notes.txt"}' });
    expect(input[at + 2]).toMatchObject({ type: "function_call_output", call_id: "call_r1" });
    expect(String(input[at + 2]?.output)).toContain("NOTES: ship on friday");
    // The summary was shown as reasoning, the answer as text; the usage has the cache's and the reasoning's tokens.
    expect(events.filter((e) => e.type === "reasoning").map((e) => e.delta).join("")).toContain("Read the notes first.");
    expect(events.filter((e) => e.type === "text").map((e) => e.delta).join("")).toBe("They say: ship on friday.");
    expect(events.at(-1)).toMatchObject({ type: "result", ok: true, usage: { promptTokens: 2100, completionTokens: 60, cacheReadTokens: 1800, reasoningTokens: 30 } });
  });

  test("a server that gives its calls call_0 in every step: the second call gets an id of its own, and each function_call_output names its call", async () => {
    writeFileSync(join(box.project, "a.txt"), "ALPHA\n");
    writeFileSync(join(box.project, "b.txt"), "BETA\n");
    route.push(
      step(answer({ calls: [{ id: "call_0", name: "read", arguments: { path: "a.txt" } }] })),
      step(answer({ calls: [{ id: "call_0", name: "read", arguments: { path: "b.txt" } }] })),
      step(answer({ text: "read both" })),
    );
    expect((await run(["read a and b"])).code).toBe(0);
    const input = steps().at(-1)?.input as Record<string, unknown>[];
    const calls = input.filter((item) => item.type === "function_call").map((item) => String(item.call_id));
    const outputs = input.filter((item) => item.type === "function_call_output");
    expect(calls).toHaveLength(2);
    expect(calls[0]).toBe("call_0");
    expect(calls[1]).not.toBe("call_0");
    expect(outputs.map((o) => o.call_id)).toEqual(calls);
    expect(String(outputs[1]?.output)).toContain("BETA");
  });

  test("a reasoning item is sent back within its turn only: the next turn starts without it", async () => {
    route.push(step(answer({ reasoning: { summary: "Thinking.", encrypted: "gAAAAB-enc-2" }, text: "first" })), step(answer({ text: "second" })));
    expect((await run(["one"])).code).toBe(0);
    expect((await run(["-c", "two"])).code).toBe(0);
    expect(JSON.stringify(steps()[1]?.input)).not.toContain("gAAAAB-enc-2");
  });

  test("response.failed with context_length_exceeded compacts the history and sends the step once more", async () => {
    route.push(step(answer({ text: "the first answer" })));
    expect((await run(["first question"])).code).toBe(0);
    const failed = created() + ev("response.failed", { response: { id: "resp_2", status: "failed", error: { code: "context_length_exceeded", message: "Your input exceeds the context window of this model." } } });
    route.push(step(failed), { body: answer({ text: "SUMMARY: one question so far." }), match: isSummary }, step(answer({ text: "the second answer" })));
    const result = await run(["-c", "second question"]);
    expect(result.stdout).toBe("the second answer\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("the history was compacted");
    const retried = JSON.stringify(steps().at(-1)?.input);
    expect(retried).toContain("SUMMARY: one question so far.");
    expect(retried).toContain("second question");
  });
});

describe("a Responses stream's faults end the turn with a sentence, never a stack", () => {
  const cases: [string, string, RegExp][] = [
    ["an error event mid-stream", created() + ev("response.output_text.delta", { item_id: "m", output_index: 0, content_index: 0, delta: "Half" }) + ev("error", { code: "server_error", message: "The server had an error while processing your request.", param: null }), /stopped mid-reply: The server had an error while processing your request\./],
    ["a stream cut before its end", created() + ev("response.output_text.delta", { item_id: "m", output_index: 0, content_index: 0, delta: "Half" }), /stopped mid-reply: the stream ended before the response did/],
  ];
  for (const [name, body, says] of cases) {
    test(name, async () => {
      route.push(step(body));
      const result = await run(["go"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(says);
      expect(result.stderr).not.toMatch(/\n\s+at .*\.ts:\d+/);
    });
  }

  test("a refusal is the answer, and the turn ends refused", async () => {
    const refusal =
      created() +
      ev("response.refusal.delta", { item_id: "m", output_index: 0, content_index: 0, delta: "I can't help with that." }) +
      ev("response.completed", { response: { id: "r", status: "completed", usage: { input_tokens: 5, output_tokens: 5 } } });
    route.push(step(refusal));
    const { events, stderr } = await run(["--format", "json", "go"]);
    expect(events.filter((e) => e.type === "text").map((e) => e.delta).join("")).toBe("I can't help with that.");
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "refusal" });
    expect(stderr).toContain("the model refused");
  });

  test("an incomplete response, max_output_tokens mid tool call: the turn ends at the limit and the cut call is not run", async () => {
    const cut = created() + functionCall(0, "call_w1", "write", ['{"path":"a.ts","content":"lo'], false) + ev("response.incomplete", { response: { id: "r", status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } });
    route.push(step(cut));
    const { events, stderr } = await run(["--format", "json", "--mode", "auto", "go"]);
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "max_tokens" });
    expect(stderr).toContain("the model's answer was cut at its token limit");
    expect(events.some((e) => e.type === "tool_start")).toBe(false);
    expect(steps()).toHaveLength(1);
  });

  test("a response.failed for a server error before any output (its usage said) is sent again, as a 5xx is", async () => {
    const failed = created() + ev("response.failed", { response: { id: "r", status: "failed", error: { code: "server_error", message: "The server had an error processing your request." }, usage: { input_tokens: 40, output_tokens: 0 } } });
    route.push(step(failed), step(answer({ text: "on the second try" })));
    const result = await run(["go"]);
    expect(result).toMatchObject({ code: 0, stdout: "on the second try\n" });
    expect(result.stderr).toContain("The server had an error processing your request.");
    expect(steps()).toHaveLength(2);
  });

  test("a model that takes no reasoning: the step goes again at once without reasoning and its encrypted content", async () => {
    route.push({ status: 400, error: openAiErrorBody("Encrypted content is not supported with this model.", "invalid_request_error"), match: isStep }, step(answer({ text: "plain" })));
    const result = await run(["go"]);
    expect(result).toMatchObject({ code: 0, stdout: "plain\n" });
    const [refused, again] = steps();
    expect(refused?.include).toEqual(["reasoning.encrypted_content"]);
    expect(again?.include).toBeUndefined();
    expect(again?.reasoning).toBeUndefined();
  });

  test("a refusal in those words of a request already without reasoning ends the turn: it is not sent again and again", async () => {
    // The second step carries a reasoning item back: its words are in the body whatever is left out.
    const first = step(answer({ reasoning: { summary: "List first.", encrypted: "gAAAAB-enc-3" }, calls: [{ id: "call_l1", name: "list", arguments: {} }] }));
    const refused = { status: 400, error: openAiErrorBody("Unsupported parameter: 'reasoning.effort' is not supported with this model.", "invalid_request_error"), match: isStep, times: 5 } as Replay;
    route.push(first, refused);
    const result = await run(["go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("rejected the request");
    expect(steps()).toHaveLength(3);
  });

  test("a server silent past idle_timeout is given up on, once retried, with a sentence saying how to wait longer", async () => {
    config("    idle_timeout: 1\n");
    route.push({ body: "", hang: true, times: 2, match: isStep } as Replay);
    const result = await run(["go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("went silent for 1 s before its reply began");
    expect(result.stderr).toContain('raise idle_timeout (seconds) of connection "test"');
    expect(steps()).toHaveLength(2);
  });

  test("a 429 before the stream is retried as chat completions' is", async () => {
    route.push({ status: 429, error: openAiErrorBody("Rate limit reached for test-model on tokens per min.", "rate_limit_exceeded", "tokens"), retryAfter: 0, match: isStep }, step(answer({ text: "after the wait" })));
    const result = await run(["go"]);
    expect(result).toMatchObject({ code: 0, stdout: "after the wait\n" });
    expect(result.stderr).toContain("is limiting requests");
  });
});

describe("web_search", () => {
  const searched = answer({
    search: { query: "bun 1.4 release", sources: [{ url: "https://bun.sh/blog/bun-v1.4" }] },
    text: "Bun 1.4 is out.",
    citations: [
      { url: "https://bun.sh/blog/bun-v1.4", title: "Bun v1.4" },
      { url: "https://github.com/oven-sh/bun/releases", title: "Releases · oven-sh/bun" },
    ],
  });
  const callSearch = step(answer({ calls: [{ id: "call_s1", name: "web_search", arguments: { query: "bun 1.4 release" } }] }));

  test("on Responses: run by a side request with only OpenAI's web_search tool, its result shown with its sources", async () => {
    route.push(callSearch, { body: searched, match: isSearch }, step(answer({ text: "Bun 1.4 is out, per its blog." })));
    const { code, events } = await run(["--format", "json", "--mode", "auto", "is bun 1.4 out?"]);
    expect(code).toBe(0);
    const search = route.requests.find((r) => isSearch(r.body))?.body;
    expect(search).toMatchObject({ tools: [{ type: "web_search" }], store: false, stream: true });
    expect(search?.include).toContain("web_search_call.action.sources");
    expect(JSON.stringify(search?.input)).toContain("bun 1.4 release");
    const end = events.find((e) => e.type === "tool_end" && e.name === "web_search");
    expect(end?.isError).toBe(false);
    const shown = "Bun 1.4 is out.\n\nSources:\n1. Bun v1.4 — https://bun.sh/blog/bun-v1.4\n2. Releases · oven-sh/bun — https://github.com/oven-sh/bun/releases";
    expect(end?.output).toBe(shown);
    const back = (steps()[1]?.input as Record<string, unknown>[]).find((i) => i.type === "function_call_output");
    expect(back).toEqual({ type: "function_call_output", call_id: "call_s1", output: shown });
  });

  test("it asks as fetch does: with nobody to answer, the search is refused and no side request is made", async () => {
    route.push(callSearch, step(answer({ text: "I could not search." })));
    const { events } = await run(["--format", "json", "--mode", "edit", "is bun 1.4 out?"]);
    const denied = events.find((e) => e.type === "tool_denied");
    expect(denied).toMatchObject({ name: "web_search" });
    expect(String(denied?.reason)).toContain("web_search");
    expect(route.requests.some((r) => isSearch(r.body))).toBe(false);
  });

  test("not offered where neither the API nor config.yaml has a search; offered on Responses", async () => {
    route.push(step(answer({ text: "ok" })));
    expect((await run(["hi"])).code).toBe(0);
    expect((steps()[0]?.tools as { name?: string }[]).map((t) => t.name)).toContain("web_search");
    config("", "chat");
    expect((await run(["hi"])).code).toBe(0);
    const chat = model.requests.find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0)?.body;
    expect(JSON.stringify(chat?.tools)).toContain('"name":"read"');
    expect(JSON.stringify(chat?.tools)).not.toContain("web_search");
  });
});
