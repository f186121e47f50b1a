/**
 * serve --stdio's writes (src/rpc/stdio.ts): the SDK hands the transport one message after the
 * last one's promise settled, so a transport that waited for each message's flush wrote a replayed
 * page one write(2) at a time. Messages are let go once handed to the writer, up to a bound of
 * bytes not yet flushed; past it the next waits, and `answered` waits for the flush of the answers.
 */
import { expect, test } from "bun:test";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { batchedWriter, lineTransport } from "../../src/rpc/stdio.ts";

/** A writer whose flushes wait until `flush()` is called, as a pipe nobody reads yet. */
function heldWriter() {
  const texts: string[] = [];
  let release: (() => void) | null = null;
  let held = new Promise<void>((resolve) => (release = resolve));
  return {
    texts,
    write(text: string): Promise<void> {
      texts.push(text);
      return held;
    },
    flush() {
      release?.();
      held = new Promise<void>((resolve) => (release = resolve));
    },
  };
}

/** Writes messages as the SDK's connection does: each after the last one's write settled. */
async function writeInTurn(transport: ReturnType<typeof lineTransport>, messages: AnyMessage[]): Promise<void> {
  for (const message of messages) {
    const writer = transport.stream.writable.getWriter();
    try {
      await writer.write(message);
    } finally {
      writer.releaseLock();
    }
  }
}

const update = (i: number, text = "x"): AnyMessage => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} ${text}` } } } });

test("a burst of messages reaches the writer whole before the first flush is over, not one message a flush", async () => {
  const out = heldWriter();
  const transport = lineTransport(new ReadableStream<Uint8Array>(), (text) => out.write(text));
  const messages = Array.from({ length: 50 }, (_, i) => update(i));
  const written = writeInTurn(transport, messages);
  await written;
  expect(out.texts.length).toBe(50);
  expect(out.texts.map((t) => JSON.parse(t))).toEqual(messages);
  out.flush();
});

test("past the bound of bytes not yet flushed the next message waits for the flush; answered waits for the answer's", async () => {
  const out = heldWriter();
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const transport = lineTransport(input.readable, (text) => out.write(text));
  const big = "y".repeat(10 * 1024);
  const burst = writeInTurn(transport, Array.from({ length: 200 }, (_, i) => update(i, big)));
  await Bun.sleep(20);
  // Some let go, the rest of the 2 MB held back until the reader takes it.
  expect(out.texts.length).toBeGreaterThan(1);
  expect(out.texts.length).toBeLessThan(200);
  while (out.texts.length < 200) {
    out.flush();
    await Bun.sleep(5);
  }
  out.flush();
  await burst;

  // A request read, then answered: answered() settles once the answer is flushed, not before.
  const writer = input.writable.getWriter();
  await writer.write(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "x/y", params: {} })}\n`));
  const reader = transport.stream.readable.getReader();
  expect((await reader.read()).value).toMatchObject({ id: 7 });
  let answered = false;
  const waiting = transport.answered().then(() => (answered = true));
  await writeInTurn(transport, [{ jsonrpc: "2.0", id: 7, result: {} }]);
  await Bun.sleep(20);
  expect(answered).toBe(false);
  out.flush();
  await waiting;
  expect(answered).toBe(true);
});

test("an answer is handed to the writer as one, to leave at once; notifications wait for the burst's flush", async () => {
  const kinds: [string, boolean][] = [];
  const transport = lineTransport(new ReadableStream<Uint8Array>(), (text, answer) => {
    kinds.push([JSON.parse(text).method ?? `answer ${JSON.parse(text).id}`, answer]);
  });
  await writeInTurn(transport, [update(1), { jsonrpc: "2.0", id: 7, result: {} }, { jsonrpc: "2.0", id: 8, error: { code: -32602, message: "no" } }, { jsonrpc: "2.0", id: 9, method: "session/request_permission", params: {} }]);
  // Before, the initialize answer written before the engine's modules loaded sat unflushed until they had.
  expect(kinds).toEqual([
    ["session/update", false],
    ["answer 7", true],
    ["answer 8", true],
    ["session/request_permission", false],
  ]);
});

/** A sink as Bun's FileSink is to the writer: each write kept, flushes counted. */
function countingSink() {
  const writes: string[] = [];
  let flushes = 0;
  return {
    writes,
    flushes: () => flushes,
    write(text: string) {
      writes.push(text);
    },
    flush() {
      flushes++;
    },
  };
}

test("a burst of messages reaches stdout's sink as its first message and then the rest in one write, in order: not one write(2) for each 4 KiB the sink took", async () => {
  const sink = countingSink();
  const transport = lineTransport(new ReadableStream<Uint8Array>(), batchedWriter(sink));
  const messages = Array.from({ length: 40 }, (_, i) => update(i, "z".repeat(1000)));
  await writeInTurn(transport, messages);
  await transport.answered();
  await new Promise((resolve) => setImmediate(resolve));
  // The first leaves at once (a first chunk must not wait for its turn's end), the rest together.
  expect(sink.writes.length).toBe(2);
  expect(sink.writes.join("").trimEnd().split("\n").map((line) => JSON.parse(line))).toEqual(messages);
});

test("an answer takes the burst before it along, at once; what follows waits for the next turn of the loop", async () => {
  const sink = countingSink();
  const write = batchedWriter(sink);
  const first = write("a\n", false);
  const second = write("b\n", false);
  expect(sink.writes).toEqual(["a\n"]);
  const answer = write("c\n", true);
  expect(sink.writes).toEqual(["a\n", "b\nc\n"]);
  await answer;
  const after = write("d\n", false);
  expect(sink.writes).toEqual(["a\n", "b\nc\n"]);
  await Promise.all([first, second, after]);
  expect(sink.writes).toEqual(["a\n", "b\nc\n", "d\n"]);
  expect(sink.flushes()).toBeGreaterThanOrEqual(2);
});

test("a message written while the last burst's first flush is still on its way leaves after that burst, not before it", async () => {
  const writes: string[] = [];
  const waiting: (() => void)[] = [];
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  // A pipe that takes its time: a flush settles only when released.
  const sink = {
    write: (text: string) => void writes.push(text),
    flush: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
  const write = batchedWriter(sink);
  const burst = write("a\n", false);
  void write("b\n", false);
  await new Promise((resolve) => setImmediate(resolve));
  // The burst's turn of the loop has come; its first flush has not settled yet.
  void write("c\n", false);
  release();
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await burst;
  expect(writes.join("")).toBe("a\nb\nc\n");
});
