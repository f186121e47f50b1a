// Each server family's stream shapes (test/model/fixtures/), replayed byte for byte by a real
// HTTP server, split at awkward places, through the client the product uses.
import { afterAll, describe, expect, test } from "bun:test";
import { streamChat } from "../../src/model/client.ts";
import type { ModelError } from "../../src/model/errors.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import { MemoryRejectedFields } from "../../src/model/request-fields.ts";
import { ToolCallAccumulator } from "../../src/model/toolcalls.ts";
import { anthropic } from "./fixtures/anthropic.ts";
import { deepseek } from "./fixtures/deepseek.ts";
import { gemini } from "./fixtures/gemini.ts";
import { groq } from "./fixtures/groq.ts";
import { heavy } from "./fixtures/heavy.ts";
import { llamacpp } from "./fixtures/llamacpp.ts";
import { lmstudio } from "./fixtures/lmstudio.ts";
import { mistral } from "./fixtures/mistral.ts";
import { ollama } from "./fixtures/ollama.ts";
import { openai } from "./fixtures/openai.ts";
import { openrouter } from "./fixtures/openrouter.ts";
import { proxies } from "./fixtures/proxies.ts";
import type { Expected, StreamFixture } from "./fixtures/types.ts";
import { vllm } from "./fixtures/vllm.ts";

const FAMILIES: Record<string, StreamFixture[]> = { openai, deepseek, openrouter, ollama, llamacpp, vllm, lmstudio, groq, mistral, gemini, anthropic, proxies, heavy };

/** How the body is cut into writes: whole, every few bytes, and at each line end and inside each multi-byte character. */
const SPLITS: Record<string, (bytes: Uint8Array) => Uint8Array[]> = {
  whole: (b) => [b],
  "every 5 bytes": (b) => every(b, 5),
  "at line ends and inside characters": (b) => {
    const pieces: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i < b.length; i++) {
      const byte = b[i] ?? 0;
      const cut = byte === 10 || byte === 13 || (byte >= 0xc0 && i + 1 < b.length);
      if (cut) {
        pieces.push(b.subarray(start, i + 1));
        start = i + 1;
      }
    }
    if (start < b.length) pieces.push(b.subarray(start));
    return pieces;
  },
};

function every(b: Uint8Array, n: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += n) pieces.push(b.subarray(i, i + n));
  return pieces;
}

/** The one server: the body of the fixture and split the request's path names, each write flushed on its own. */
const replays = new Map<string, { body: Uint8Array; split: (b: Uint8Array) => Uint8Array[] }>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch(req) {
    const key = decodeURIComponent(new URL(req.url).pathname.split("/")[1] ?? "");
    const replay = replays.get(key);
    if (!replay) return new Response("no such fixture", { status: 404 });
    const pieces = replay.split(replay.body);
    const stream = new ReadableStream({
      type: "direct",
      async pull(controller) {
        for (const piece of pieces) {
          controller.write(piece);
          await controller.flush();
        }
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
  },
});
afterAll(() => server.stop(true));

type Summary = { text: string; reasoning: string; calls: Expected["calls"]; finish?: string; error?: ModelError; usage: Expected["usage"] };

async function replay(key: string): Promise<Summary> {
  const endpoint = { name: "fixture", baseUrl: `http://127.0.0.1:${server.port}/${encodeURIComponent(key)}`, apiKey: null };
  const request = { model: "m", messages: [{ role: "user" as const, content: "go" }], effort: "off" as const };
  const events: ModelEvent[] = [];
  for await (const e of streamChat(endpoint, request, { retry: { retries: 0 }, rejectedFields: new MemoryRejectedFields() })) events.push(e);
  const calls = new ToolCallAccumulator(() => "generated");
  const summary: Summary = { text: "", reasoning: "", calls: [], usage: null };
  for (const e of events) {
    if (e.type === "text") summary.text += e.delta;
    else if (e.type === "reasoning") summary.reasoning += e.delta;
    else if (e.type === "tool_call_delta") calls.add(e);
    else if (e.type === "usage") summary.usage = { promptTokens: e.promptTokens, completionTokens: e.completionTokens };
    else if (e.type === "finish") summary.finish = e.reason;
    else if (e.type === "error") summary.error = e.error;
  }
  // The last event ends the stream: a finish or an error, never both, never missing.
  expect(["finish", "error"]).toContain(events.at(-1)?.type ?? "none");
  summary.calls = calls.result().map((c) => ({
    name: c.name,
    arguments: JSON.parse(c.arguments),
    ...(c.id === "generated" ? {} : { id: c.id }),
    ...(c.extraContent ? { extraContent: c.extraContent } : {}),
  }));
  return summary;
}

for (const [family, fixtures] of Object.entries(FAMILIES)) {
  describe(`replayed streams: ${family}`, () => {
    for (const fixture of fixtures) {
      for (const [splitName, split] of Object.entries(SPLITS)) {
        test(`${fixture.name} (${splitName})`, async () => {
          const key = `${family}:${fixture.name}:${splitName}`;
          replays.set(key, { body: new TextEncoder().encode(fixture.body), split });
          const got = await replay(key);
          const want = fixture.expect;
          expect(got.text).toBe(want.text ?? "");
          expect(got.reasoning).toBe(want.reasoning ?? "");
          expect(got.calls).toEqual(want.calls ?? []);
          if (want.error) {
            expect(got.finish).toBeUndefined();
            expect(got.error?.kind).toBe(want.error);
            if (want.errorSays) expect(got.error?.message).toContain(want.errorSays);
          } else {
            expect(got.error?.message).toBeUndefined();
            expect(got.finish).toBe(want.finish ?? "end_turn");
          }
          if (want.usage !== undefined) expect(got.usage).toEqual(want.usage);
        });
      }
    }
  });
}

test("every family has its fixture file, each fixture naming where its shape is documented", () => {
  for (const family of ["ollama", "llamacpp", "vllm", "lmstudio", "openai", "deepseek", "openrouter", "groq", "mistral", "gemini", "anthropic"]) {
    const fixtures = FAMILIES[family] ?? [];
    expect({ family, count: fixtures.length > 0 }).toEqual({ family, count: true });
    for (const f of fixtures) expect(f.source.length).toBeGreaterThan(10);
  }
});
