// The Responses API's part of bench/engine.ts: a server that streams CHUNKS text pieces as
// response.output_text.delta events (test/model/fixtures/responses/streams.ts's shapes) in writes
// of 16 events, a harness whose connection speaks Responses to it, and the plain client's read of
// the same bytes.
import { completed, created, ev } from "../test/model/fixtures/responses/streams.ts";
import { type EngineHarness, engineHarness } from "../test/support/engine.ts";
import { rawRead, type Timing } from "./raw-sse.ts";

export type ResponsesReplay = { harness: EngineHarness; raw(): Promise<Timing>; close(): Promise<void> };

export async function responsesReplay(count: number, pieces: readonly string[]): Promise<ResponsesReplay> {
  const events = [created(), ...pieces.map((delta) => ev("response.output_text.delta", { item_id: "msg_0", output_index: 0, content_index: 0, delta })), completed({ input: 100, output: count })];
  const writes: Uint8Array[] = [];
  for (let i = 0; i < events.length; i += 16) writes.push(new TextEncoder().encode(events.slice(i, i + 16).join("")));
  const side = new TextEncoder().encode(created() + ev("response.output_text.delta", { item_id: "msg_0", output_index: 0, content_index: 0, delta: "A title" }) + completed({ input: 10, output: 2 }));
  let harness: EngineHarness | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      if (!harness) return new Response("not ready", { status: 503 });
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/responses")) return harness.model.handle(req);
      // A step offers function tools; a side call (the session's title) gets a short answer.
      const body = (await req.json()) as { tools?: unknown[] };
      const sent = body.tools && body.tools.length > 0 ? writes : [side];
      const stream = new ReadableStream({
        type: "direct",
        async pull(controller) {
          for (const piece of sent) {
            controller.write(piece);
            await controller.flush();
          }
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  const url = `http://127.0.0.1:${server.port}/v1`;
  harness = await engineHarness({ checkEvents: false, config: { connections: { test: { base_url: url, api: "responses" } } } });
  const made = harness;
  return {
    harness: made,
    raw: () =>
      rawRead(`${url}/responses`, { model: "test-model", stream: true, input: "go", tools: [{ type: "function", name: "x", parameters: {} }] }, (data) => (data as { type?: string }).type === "response.output_text.delta", count),
    async close() {
      await made.close();
      server.stop(true);
    },
  };
}
