import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { listMessages } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, isStep, ofType } from "../support/engine.ts";

// The real engine against a real server of the test's own: a turn's step requests get the
// answers queued in `steps` (a 429, silence, a cut stream…); everything else (the model list,
// titles, and steps once the queue is empty) goes to the harness's scripted model.

let h: EngineHarness;
let steps: (() => Response)[] = [];
let stepRequests = 0;
let server: ReturnType<typeof Bun.serve>;

const StepBody = z.looseObject({ tools: z.array(z.unknown()).optional(), messages: z.array(z.looseObject({ role: z.string() })).optional() });
const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };
const frame = (d: object) => encoder.encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: null }] })}\n\n`);

/** Headers, then `frames`, then nothing. */
const silence = (frames: Uint8Array[] = []) => () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const f of frames) c.enqueue(f);
      },
    }),
    { headers: SSE },
  );

/** Headers, then `frames`, then the connection is reset. */
const cut = (frames: Uint8Array[]) => () =>
  new Response(
    new ReadableStream<Uint8Array>({
      async start(c) {
        for (const f of frames) c.enqueue(f);
        await Bun.sleep(20);
        c.error(undefined);
      },
    }),
    { headers: SSE },
  );

beforeEach(async () => {
  steps = [];
  stepRequests = 0;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (req) => {
      if (req.method === "POST" && isStep(StepBody.parse(await req.clone().json()))) {
        stepRequests++;
        const next = steps.shift();
        if (next) return next();
      }
      return h.model.handle(req);
    },
  });
  h = await engineHarness({ config: { connections: { test: { base_url: `http://127.0.0.1:${server.port}/v1`, idle_timeout: 0.2 } } } });
});
afterEach(async () => {
  await h.close();
  server.stop(true);
});

const notices = (session: Parameters<EngineHarness["events"]>[0]) => ofType(h.events(session), "notice").map((n) => n.message);

describe("a turn through failures of the server", () => {
  test("a 429 is waited out as the server asks, the wait said as a notice with how long and which retry", async () => {
    steps.push(() => new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { "retry-after-ms": "50" } }));
    h.model.push({ text: "after the wait", match: isStep });
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(answer.error).toBeUndefined();
    expect(notices(session)).toContain(
      `the model server at http://127.0.0.1:${server.port}/v1 is limiting requests (HTTP 429: slow down); trying again in 0.1 s (retry 1 of 2)`,
    );
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe("after the wait");
  });

  test("a server that sends headers and then nothing: retried once, then the turn fails with a sentence naming the server and the timeout", async () => {
    steps.push(silence(), silence());
    const session = await h.session();
    // Both answers stay silent for good: a turn not given up at the idle timeout would time the test out.
    const answer = await session.prompt({ text: "hello" });
    const url = `http://127.0.0.1:${server.port}/v1`;
    const sentence = `the model server at ${url} went silent for 0.2 s before its reply began; raise idle_timeout (seconds) of connection "test" in config.yaml if it needs longer`;
    expect(answer.error).toBe(`${sentence} (tried 2 times)`);
    expect(answer.stopReason).toBe("end_turn");
    expect(notices(session).filter((n) => n.includes("trying again"))).toEqual([expect.stringMatching(/^the model server .* went silent for 0\.2 s before its reply began; .*; trying again in [\d.]+ s \(retry 1 of 1\)$/)]);
    expect(ofType(h.events(session), "error").map((e) => e.message)).toEqual([`${sentence} (tried 2 times)`]);
    expect(stepRequests).toBe(2);
  });

  test("silence mid-answer ends the turn with what arrived, and says so", async () => {
    steps.push(silence([frame({ role: "assistant" }), frame({ content: "Half of" })]));
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer.error).toMatch(/went silent for 0\.2 s mid-reply; .*; the reply ends where it was cut off \(what arrived is kept\)$/);
    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(assistant?.body).toMatchObject({ text: "Half of", partial: true });
    expect(stepRequests).toBe(1);
  });

  test("a stream cut mid-answer ends the turn with what arrived, kept in the store, and says so", async () => {
    steps.push(cut([frame({ role: "assistant" }), frame({ content: "The answer is" })]));
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer.stopReason).toBe("end_turn");
    expect(answer.error).toStartWith(`the model server at http://127.0.0.1:${server.port}/v1 stopped mid-reply`);
    expect(answer.error).toEndWith("; the reply ends where it was cut off (what arrived is kept)");
    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(assistant?.body).toMatchObject({ text: "The answer is", partial: true });
    expect(stepRequests).toBe(1);
  });

  test("a stream cut before any of it was shown is retried with a notice, and the turn answers", async () => {
    steps.push(cut([frame({ role: "assistant" })]));
    h.model.push({ text: "whole this time", match: isStep });
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer.error).toBeUndefined();
    expect(notices(session)).toEqual([expect.stringMatching(/stopped mid-reply: .*; trying again in [\d.]+ s \(retry 1 of 2\)$/)]);
    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(assistant?.body).toMatchObject({ text: "whole this time" });
    expect(stepRequests).toBe(2);
  });
});
