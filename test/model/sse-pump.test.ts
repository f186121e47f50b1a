/**
 * The one stream loop of the three wires (src/model/sse-pump.ts), through each wire against a real
 * server: a reply ends at its stream's last word, a stream that stops early is cut with its own
 * sentence, and a chat reply is read past its finish for the usage that follows.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { ModelApi } from "../../src/model/apis.ts";
import type { Endpoint } from "../../src/model/endpoint.ts";
import type { ModelEvent } from "../../src/model/events.ts";
import { streamModel } from "../../src/model/reply-stream.ts";

let server: ReturnType<typeof Bun.serve> | null = null;
afterEach(() => {
  server?.stop(true);
  server = null;
});

/** A server that sends each of `writes` as a network read of its own, then closes the stream or (`open`) holds it open, silent. */
function serve(api: ModelApi, writes: string | string[], open: boolean): Endpoint {
  const pieces = (typeof writes === "string" ? [writes] : writes).map((text) => new TextEncoder().encode(text));
  server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    fetch: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(c) {
            for (const [i, bytes] of pieces.entries()) {
              // The next write only once the client read this one: two reads, not one.
              if (i > 0) await Bun.sleep(50);
              c.enqueue(bytes);
            }
            if (!open) c.close();
          },
          pull: () => new Promise(() => {}),
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  // A loop that read on past the last word would meet this silence and end in a timeout, not a finish.
  return { name: "test", baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: "sk-test", api, idle: { seconds: 2, hint: "raise idle_timeout" } };
}

async function events(endpoint: Endpoint): Promise<ModelEvent[]> {
  const seen: ModelEvent[] = [];
  for await (const e of streamModel(endpoint, { model: "m", messages: [{ role: "user", content: "go" }], effort: "off" }, { retry: { retries: 0 } })) seen.push(e);
  return seen;
}

const sse = (...data: unknown[]) => data.map((d) => `data: ${typeof d === "string" ? d : JSON.stringify(d)}\n\n`).join("");

const streams: Record<ModelApi, { whole: string; early: string; cut: string }> = {
  chat: {
    whole: sse({ choices: [{ delta: { content: "hi" } }] }, { choices: [{ delta: {}, finish_reason: "stop" }] }, "[DONE]"),
    early: sse({ choices: [{ delta: { content: "hi" } }] }),
    cut: "the stream ended before the reply did",
  },
  messages: {
    whole: sse(
      { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ),
    early: sse(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
    ),
    cut: "the stream ended before the reply did (no message_stop)",
  },
  responses: {
    whole: sse({ type: "response.output_text.delta", output_index: 0, delta: "hi" }, { type: "response.completed", response: { usage: { input_tokens: 3, output_tokens: 1 } } }),
    early: sse({ type: "response.output_text.delta", output_index: 0, delta: "hi" }),
    cut: "the stream ended before the response did",
  },
};

describe("the three wires' one stream loop", () => {
  for (const api of ["chat", "messages", "responses"] as const) {
    test(`${api}: the reply ends at its stream's last word, though the server holds the connection open`, async () => {
      const seen = await events(serve(api, streams[api].whole, true));
      expect(seen.filter((e) => e.type === "text")).toEqual([{ type: "text", delta: "hi" }]);
      expect(seen.at(-1)).toEqual({ type: "finish", reason: "end_turn" });
    }, 30_000);

    test(`${api}: a stream that ends after some text gives the text, then is cut with its API's sentence`, async () => {
      const seen = await events(serve(api, streams[api].early, false));
      expect(seen[0]).toEqual({ type: "text", delta: "hi" });
      const last = seen.at(-1);
      expect(last?.type).toBe("error");
      if (last?.type !== "error") return;
      expect(last.error.kind).toBe("cut");
      expect(last.error.message).toContain(streams[api].cut);
    }, 30_000);
  }

  test("chat: a reply that finished is read on for its usage until the stream ends", async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
    const seen = await events(serve("chat", [sse({ choices: [{ delta: { content: "hi" }, finish_reason: "stop" }] }), sse({ choices: [], usage })], false));
    expect(seen.map((e) => e.type)).toEqual(["text", "usage", "finish"]);
  }, 30_000);
});
