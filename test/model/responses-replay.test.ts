// The Responses API's documented stream shapes (fixtures/responses.ts), replayed byte for byte by a
// real HTTP server, whole and split every few bytes, through the wire and transport the product uses.
import { afterAll, describe, expect, test } from "bun:test";
import type { ModelError } from "../../src/model/errors.ts";
import type { CarryItem, ModelEvent } from "../../src/model/events.ts";
import { MemoryRejectedFields } from "../../src/model/request-fields.ts";
import { responsesWire } from "../../src/model/responses-wire.ts";
import { ToolCallAccumulator } from "../../src/model/toolcalls.ts";
import { streamWire } from "../../src/model/transport.ts";
import { responses } from "./fixtures/responses/streams.ts";

const SPLITS: Record<string, (b: Uint8Array) => Uint8Array[]> = {
  whole: (b) => [b],
  "every 5 bytes": (b) => {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < b.length; i += 5) pieces.push(b.subarray(i, i + 5));
    return pieces;
  },
};

const replays = new Map<string, Uint8Array[]>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch(req) {
    const pieces = replays.get(decodeURIComponent(new URL(req.url).pathname.split("/")[1] ?? ""));
    if (!pieces) return new Response("no such fixture", { status: 404 });
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
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
  },
});
afterAll(() => server.stop(true));

type Got = {
  text: string;
  reasoning: string;
  calls: { name: string; arguments: unknown; id?: string }[];
  carry: object[];
  finish?: string;
  error?: ModelError;
  usage: { promptTokens: number; completionTokens: number } | null;
  cacheReadTokens?: number;
  reasoningTokens?: number;
  sources: { url: string; title: string }[];
};

async function replay(key: string): Promise<Got> {
  const endpoint = { name: "fixture", baseUrl: `http://127.0.0.1:${server.port}/${encodeURIComponent(key)}`, apiKey: null };
  const request = { model: "gpt-5.1-codex", messages: [{ role: "user" as const, content: "go" }], effort: "medium" as const };
  const found = { sources: [], searches: [] };
  const wire = responsesWire(endpoint, request, { rejectedFields: new MemoryRejectedFields(), found });
  const events: ModelEvent[] = [];
  for await (const batch of streamWire(endpoint, request.model, wire, { retry: { retries: 0 } })) events.push(...batch);
  expect(["finish", "error"]).toContain(events.at(-1)?.type ?? "none");
  const calls = new ToolCallAccumulator(() => "generated");
  const got: Got = { text: "", reasoning: "", calls: [], carry: [], usage: null, sources: found.sources };
  for (const e of events) {
    if (e.type === "text") got.text += e.delta;
    else if (e.type === "reasoning") got.reasoning += e.delta;
    else if (e.type === "tool_call_delta") calls.add(e);
    else if (e.type === "carry") got.carry.push((e.item satisfies CarryItem).item);
    else if (e.type === "finish") got.finish = e.reason;
    else if (e.type === "error") got.error = e.error;
    else if (e.type === "usage") {
      got.usage = { promptTokens: e.promptTokens, completionTokens: e.completionTokens };
      if (e.cacheReadTokens !== undefined) got.cacheReadTokens = e.cacheReadTokens;
      if (e.reasoningTokens !== undefined) got.reasoningTokens = e.reasoningTokens;
    }
  }
  got.calls = calls.result().map((c) => ({ name: c.name, arguments: parsedOr(c.arguments), ...(c.id === "generated" ? {} : { id: c.id }) }));
  return got;
}

const parsedOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

describe("replayed Responses streams", () => {
  for (const fixture of responses) {
    for (const [splitName, split] of Object.entries(SPLITS)) {
      test(`${fixture.name} (${splitName})`, async () => {
        const key = `${fixture.name}:${splitName}`;
        replays.set(key, split(new TextEncoder().encode(fixture.body)));
        const got = await replay(key);
        const want = fixture.expect;
        expect(got.text).toBe(want.text ?? "");
        expect(got.reasoning).toBe(want.reasoning ?? "");
        expect(got.calls).toEqual(want.calls ?? []);
        expect(got.carry).toEqual(want.carry ?? []);
        if (want.error) {
          expect(got.finish).toBeUndefined();
          expect(got.error?.kind).toBe(want.error);
          if (want.errorSays) expect(got.error?.message).toContain(want.errorSays);
        } else {
          expect(got.error?.message).toBeUndefined();
          expect(got.finish).toBe(want.finish ?? "end_turn");
          expect(got.sources).toEqual(want.sources ?? []);
        }
        if (want.usage !== undefined) expect(got.usage).toEqual(want.usage);
        if (want.cacheReadTokens !== undefined) expect(got.cacheReadTokens).toBe(want.cacheReadTokens);
        if (want.reasoningTokens !== undefined) expect(got.reasoningTokens).toBe(want.reasoningTokens);
      });
    }
  }

  test("each fixture names where its shape is documented", () => {
    for (const f of responses) expect(f.source).toMatch(/platform\.openai\.com\/docs/);
  });
});
