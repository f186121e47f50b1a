// The Messages API's replay for bench/engine.ts: one text block of `chunks` text_delta events,
// as Anthropic streams it (test/model/fixtures/messages.ts, which cites the documented shape), with
// a ping every 500 events, sent to a harness whose connection speaks Messages.
import { reply, textBlock } from "../test/model/fixtures/messages.ts";
import { type EngineHarness, engineHarness } from "../test/support/engine.ts";
import { inPieces, type RawRead, replayServer } from "./stream-rates.ts";

export type ApiReplay = { harness: EngineHarness; raw: RawRead; close(): Promise<void> };

export async function messagesReplay(texts: readonly string[]): Promise<ApiReplay> {
  const body = reply(withPings(textBlock(0, ...texts)));
  let harness: EngineHarness | null = null;
  const server = replayServer("/messages", inPieces(body), reply(textBlock(0, "A title")), () => harness);
  harness = await engineHarness({ checkEvents: false, config: { connections: { test: { base_url: server.url, api: "messages" } } } });
  const made = harness;
  const isText = (event: unknown) => {
    const e = event as { type?: string; delta?: { type?: string; text?: string } };
    return e.type === "content_block_delta" && e.delta?.type === "text_delta" && !!e.delta.text;
  };
  const tools = [{ name: "x", input_schema: { type: "object" } }];
  return {
    harness: made,
    raw: { url: `${server.url}/messages`, body: { model: "test-model", max_tokens: 1024, stream: true, messages: [{ role: "user", content: "go" }], tools }, isText },
    async close() {
      await made.close();
      server.stop();
    },
  };
}

/** A `ping` event after every 500 events, as a long Messages stream has them. */
function withPings(events: string): string {
  const parts = events.split(/(?<=\n\n)/);
  const out: string[] = [];
  parts.forEach((part, i) => {
    out.push(part);
    if (i % 500 === 499) out.push('event: ping\ndata: {"type": "ping"}\n\n');
  });
  return out.join("");
}
