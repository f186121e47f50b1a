/**
 * stdout's batched writer (src/rpc/stdio.ts) when the reader is slow: the first message's flush
 * waits on a full pipe, and what was gathered behind it must still leave before anything written
 * later; a stdout that fails (EPIPE) must not leave the writer gathering forever.
 */
import { expect, test } from "bun:test";
import { batchedWriter } from "../../src/rpc/stdio.ts";

/** A sink whose flushes settle only when the test lets them (a pipe whose reader is slow), and that can break (EPIPE). */
function slowSink() {
  const writes: string[] = [];
  const pending: { resolve(): void; reject(error: Error): void }[] = [];
  const state = { broken: false };
  return {
    writes,
    state,
    write(text: string) {
      if (state.broken) throw new Error("EPIPE: broken pipe, write");
      writes.push(text);
      return text.length;
    },
    flush() {
      if (state.broken) return Promise.reject(new Error("EPIPE: broken pipe, flush"));
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
    /** Settles every flush asked for so far. */
    drain(error?: Error) {
      for (const flush of pending.splice(0)) (error ? flush.reject(error) : flush.resolve());
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("a message written while the first one's flush waits on a slow reader leaves after those gathered before it, not ahead of them", async () => {
  const sink = slowSink();
  const write = batchedWriter(sink);
  const settled = [write("1\n", false), write("2\n", false), write("3\n", false)];
  await turn();
  await turn();
  // The reader has not taken the first yet: the next message joins those waiting.
  settled.push(write("4\n", false));
  // The reader takes what it was given, the rest follows.
  for (let i = 0; i < 3; i++) {
    sink.drain();
    await turn();
  }
  await Promise.all(settled);
  expect(sink.writes.join("")).toBe("1\n2\n3\n4\n");
});

test("an answer behind a slow flush takes those gathered along, in order", async () => {
  const sink = slowSink();
  const write = batchedWriter(sink);
  const settled = [write("1\n", false), write("2\n", false)];
  await turn();
  await turn();
  settled.push(write("3\n", true));
  expect(sink.writes.join("")).toBe("1\n2\n3\n");
  sink.drain();
  await turn();
  sink.drain();
  await Promise.all(settled);
});

test("a stdout that fails mid-burst: every writer of the burst hears it, and a later message fails at once instead of waiting", async () => {
  const sink = slowSink();
  const write = batchedWriter(sink);
  const burst = [write("1\n", false), write("2\n", false)].map((p) => p.then(() => "ok", () => "failed"));
  await turn();
  sink.state.broken = true;
  sink.drain(new Error("EPIPE: broken pipe, write"));
  expect(await Promise.all(burst)).toEqual(["failed", "failed"]);
  expect(() => write("3\n", false)).toThrow("EPIPE");
});
