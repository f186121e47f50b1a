/**
 * `answered()` — what a transport waits on before it ends (the requests already read are answered
 * first) — resolves only when every request delivered has been answered, for every caller.
 */
import { expect, test } from "bun:test";
import { type AnyMessage, messageStream } from "../../src/rpc/stream.ts";

function settled(promise: Promise<void>): () => boolean {
  let done = false;
  void promise.then(() => (done = true));
  return () => done;
}

test("two requests in flight under one id: answering the first does not count as answering both", async () => {
  const sent: AnyMessage[] = [];
  const messages = messageStream((m) => void sent.push(m));
  const writer = messages.stream.writable.getWriter();
  messages.deliver({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: {} });
  messages.deliver({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: {} });
  const done = settled(messages.answered());
  await writer.write({ jsonrpc: "2.0", id: 7, result: {} });
  await Bun.sleep(1);
  expect(done()).toBe(false);
  await writer.write({ jsonrpc: "2.0", id: 7, result: {} });
  await Bun.sleep(1);
  expect(done()).toBe(true);
  expect(sent.length).toBe(2);
});

test("every caller waiting on answered() is told", async () => {
  const messages = messageStream(() => {});
  const writer = messages.stream.writable.getWriter();
  messages.deliver({ jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} });
  const first = settled(messages.answered());
  const second = settled(messages.answered());
  await writer.write({ jsonrpc: "2.0", id: 1, result: {} });
  await Bun.sleep(1);
  expect([first(), second()]).toEqual([true, true]);
});
