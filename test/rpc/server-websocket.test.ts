/**
 * The control socket's sends wait above the high-water mark and never drop: every send waiting for
 * the drain goes out once it comes (the dispatcher's own answer and a reply to a frame
 * that was not JSON may both be waiting at once).
 */
import { expect, test } from "bun:test";
import type { ServerWebSocket } from "bun";
import { serverWebSocketTransport } from "../../src/rpc/server-websocket.ts";

/** Bun's server socket as the transport uses it: how much is queued, and what was sent. */
function socket(buffered: number) {
  const sent: string[] = [];
  const ws = {
    getBufferedAmount: () => buffered,
    send: (text: string) => {
      sent.push(text);
      return text.length;
    },
  };
  return { ws: ws as unknown as ServerWebSocket<unknown>, sent, setBuffered: (n: number) => (buffered = n) };
}

test("two sends waiting for the drain both go out when it comes", async () => {
  const { ws, sent, setBuffered } = socket(5 * 1024 * 1024);
  const transport = serverWebSocketTransport(ws);
  const writer = transport.stream.writable.getWriter();
  const first = writer.write({ jsonrpc: "2.0", method: "session/update", params: { n: 1 } });
  // A frame that is not JSON is answered at once by the transport itself, beside the stream's writes.
  transport.receive("not json");
  await Bun.sleep(5);
  expect(sent).toEqual([]);
  setBuffered(0);
  transport.drained();
  await first;
  await Bun.sleep(5);
  const out = sent.map((text) => JSON.parse(text) as { method?: string; error?: { code: number } });
  expect(out.length).toBe(2);
  expect(out.find((m) => m.method === "session/update")).toMatchObject({ params: { n: 1 } });
  expect(out.find((m) => m.error)).toMatchObject({ id: null, error: { code: -32700 } });
  transport.end();
});

test("sends waiting when the socket ends are let go without being sent", async () => {
  const { ws, sent } = socket(5 * 1024 * 1024);
  const transport = serverWebSocketTransport(ws);
  transport.receive("not json");
  transport.receive("{also not json");
  transport.end();
  await Bun.sleep(5);
  expect(sent).toEqual([]);
});
