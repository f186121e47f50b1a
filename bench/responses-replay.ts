// The Responses API's replay for bench/engine.ts: `texts` as response.output_text.delta events of
// one message item, as OpenAI streams them (test/model/fixtures/responses/streams.ts, which cites
// the documented shape), sent to a harness whose connection speaks Responses.
import { completed, created, message } from "../test/model/fixtures/responses/streams.ts";
import { type EngineHarness, engineHarness } from "../test/support/engine.ts";
import type { ApiReplay } from "./messages-replay.ts";
import { inPieces, replayServer } from "./stream-rates.ts";

export async function responsesReplay(texts: readonly string[]): Promise<ApiReplay> {
  const body = created() + message(0, [...texts]) + completed({ input: 100, output: texts.length });
  let harness: EngineHarness | null = null;
  const server = replayServer("/responses", inPieces(body), created() + message(0, ["A title"]) + completed({ input: 10, output: 2 }), () => harness);
  harness = await engineHarness({ checkEvents: false, config: { connections: { test: { base_url: server.url, api: "responses" } } } });
  const made = harness;
  const isText = (event: unknown) => (event as { type?: string }).type === "response.output_text.delta";
  return {
    harness: made,
    raw: { url: `${server.url}/responses`, body: { model: "test-model", stream: true, input: "go", tools: [{ type: "function", name: "x", parameters: { type: "object" } }] }, isText },
    async close() {
      await made.close();
      server.stop();
    },
  };
}

