// Reasoning and provider fields through the engine: DeepSeek's and Kimi's thinking modes get a
// tool-calling step's reasoning back as reasoning_content; Gemini's thought_signature comes back on
// its call; <think> in the text is reasoning and never a title; a refusal is the answer and the
// turn says it was refused.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, isStep, isTitle, ofType, step } from "../support/engine.ts";
import type { ChatRequest } from "../support/model.ts";
import { data } from "../model/fixtures/types.ts";

let h: EngineHarness | null = null;
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await h?.close();
  h = null;
});

test("a step that called tools sends its reasoning back as reasoning_content; a plain answer's reasoning is not sent", async () => {
  h = await engineHarness();
  writeFileSync(join(h.project, "a.txt"), "alpha\n");
  h.model.push(
    step({ reasoning: "I should read a.txt first.", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
    step({ reasoning: "It says alpha.", text: "It says alpha." }),
    step({ text: "again" }),
  );
  const session = await h.session();
  await session.prompt({ text: "what is in a.txt?" });
  await session.prompt({ text: "and now?" });
  const steps = h.model.requests.filter((r) => isStep(r.body));
  const assistants = (r: ChatRequest) => (r.messages ?? []).filter((m) => m.role === "assistant");
  expect(assistants(steps[1]?.body ?? {})[0]).toMatchObject({ reasoning_content: "I should read a.txt first." });
  const later = assistants(steps[2]?.body ?? {});
  expect(later[0]).toMatchObject({ reasoning_content: "I should read a.txt first." });
  expect(later[1]).toEqual({ role: "assistant", content: "It says alpha." });
});

/** A server that answers the first step from `first` (raw SSE) and every other request as the harness's scripted model does. */
async function harnessWithFirstStep(first: string): Promise<{ h: EngineHarness; stepBodies: Record<string, unknown>[] }> {
  let harness: EngineHarness | null = null;
  const stepBodies: Record<string, unknown>[] = [];
  const front = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (!harness) return new Response("not ready", { status: 503 });
      if (req.method !== "POST") return harness.model.handle(req);
      const body = (await req.clone().json()) as Record<string, unknown>;
      if (!isStep(body)) return harness.model.handle(req);
      stepBodies.push(body);
      if (stepBodies.length === 1) return new Response(first, { headers: { "content-type": "text/event-stream" } });
      return harness.model.handle(req);
    },
  });
  stops.push(() => front.stop(true));
  harness = await engineHarness({ config: { connections: { test: { base_url: `http://127.0.0.1:${front.port}/v1` } } } });
  return { h: harness, stepBodies };
}

test("Gemini's thought_signature on a tool call is kept and returned with the call on the next request", async () => {
  const signature = { google: { thought_signature: "CpYBAVSoXO4-sig" } };
  const first =
    data({ choices: [{ delta: { role: "assistant", tool_calls: [{ extra_content: signature, function: { arguments: '{"path":"a.txt"}', name: "read" }, id: "call_297140", type: "function" }] }, index: 0 }], object: "chat.completion.chunk" }) +
    data({ choices: [{ delta: { role: "assistant", content: "" }, finish_reason: "stop", index: 0 }], object: "chat.completion.chunk" });
  const made = await harnessWithFirstStep(first);
  h = made.h;
  writeFileSync(join(h.project, "a.txt"), "alpha\n");
  h.model.push(step({ text: "It says alpha." }));
  const session = await h.session();
  const answer = await session.prompt({ text: "read a.txt" });
  expect(answer.stopReason).toBe("end_turn");
  expect(ofType(h.events(session), "tool_end")[0]).toMatchObject({ isError: false });
  const second = made.stepBodies[1]?.messages as Record<string, unknown>[];
  const call = second.find((m) => m.role === "assistant") as { tool_calls: Record<string, unknown>[] };
  expect(call.tool_calls[0]).toEqual({ id: "call_297140", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' }, extra_content: signature });
});

test("a refusal in place of content is shown as the answer and the turn ends refused", async () => {
  const first =
    data({ choices: [{ index: 0, delta: { role: "assistant", content: null, refusal: "" }, finish_reason: null }] }) +
    data({ choices: [{ index: 0, delta: { refusal: "I can't help with that." }, finish_reason: null }] }) +
    data({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
    "data: [DONE]\n\n";
  const made = await harnessWithFirstStep(first);
  h = made.h;
  const session = await h.session();
  const answer = await session.prompt({ text: "do something bad" });
  expect(answer.stopReason).toBe("refusal");
  expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("I can't help with that.");
  expect(ofType(h.events(session), "done")[0]).toMatchObject({ stopReason: "refusal" });
});

test("<think>…</think> in the text is reasoning, not the answer, and never the session's title", async () => {
  h = await engineHarness();
  h.model.push(
    step({ text: ["<thi", "nk>The person wants a greeting.</th", "ink>\n\nHello!"] }),
    { match: isTitle, text: ["<think>\nA short name.\n</think>\n\n", "Greeting the world"] },
  );
  const session = await h.session();
  await session.prompt({ text: "say hello to the world" });
  await session.idle();
  const events = h.events(session);
  expect(ofType(events, "text").map((e) => e.delta).join("")).toBe("Hello!");
  expect(ofType(events, "reasoning").map((e) => e.delta).join("")).toBe("The person wants a greeting.");
  expect(session.title).toBe("Greeting the world");
});

test("a step whose server refuses stream_options is sent again without it, said as a notice, and the turn goes on", async () => {
  h = await engineHarness();
  h.model.push(
    {
      match: (b) => isStep(b) && b.stream_options !== undefined && b.stream_options !== null,
      fail: { status: 400, body: JSON.stringify({ error: { message: "stream_options: Extra inputs are not permitted" } }) },
    },
    step({ text: "fine" }),
    step({ text: "again" }),
  );
  const session = await h.session();
  const answer = await session.prompt({ text: "hello" });
  expect(answer.stopReason).toBe("end_turn");
  expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("fine");
  expect(ofType(h.events(session), "notice").map((e) => e.message).join("\n")).toContain("sending it without stream_options");
  await session.prompt({ text: "and again" });
  const steps = h.model.requests.filter((r) => isStep(r.body));
  expect(steps.map((r) => r.body.stream_options !== undefined)).toEqual([true, false, false]);
});
