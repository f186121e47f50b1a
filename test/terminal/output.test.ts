import { describe, expect, test } from "bun:test";
import { createOutput, OUTPUT_LIMITS, type OutputLimits } from "../../src/terminal/output.ts";

/** A consumer whose buffer only goes down when the test says so, and a producer that records pauses. */
function harness(limits: Partial<OutputLimits> = {}) {
  const frames: Uint8Array[] = [];
  const events: string[] = [];
  let buffered = 0;
  let overflows = 0;
  const output = createOutput({
    sink: {
      send(frame) {
        frames.push(frame);
        buffered += frame.length;
      },
      bufferedAmount: () => buffered,
    },
    flow: { pauseOutput: () => void events.push("pause"), resumeOutput: () => void events.push("resume") },
    onOverflow: () => void overflows++,
    limits,
  });
  return {
    output,
    frames,
    events,
    overflows: () => overflows,
    /** The consumer passes everything on and does not say so. */
    passOnQuietly() {
      buffered = 0;
    },
    /** The consumer passes `n` bytes on (all when n is omitted) and says so. */
    drain(n = buffered) {
      buffered = Math.max(0, buffered - n);
      output.drained();
    },
    received: () => Buffer.concat(frames),
  };
}

function bytes(n: number, seed = 0): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

describe("coalescing", () => {
  test("many small reads within a few milliseconds become one frame", async () => {
    const h = harness();
    for (let i = 0; i < 100; i++) h.output.push(new TextEncoder().encode(`${i},`));
    expect(h.frames).toHaveLength(0);
    await Bun.sleep(OUTPUT_LIMITS.flushMs + 20);
    expect(h.frames).toHaveLength(1);
    expect(new TextDecoder().decode(h.received())).toBe(Array.from({ length: 100 }, (_, i) => `${i},`).join(""));
  });

  test("a big read goes out at once in frames no larger than the frame size; the rest after the delay", async () => {
    const h = harness();
    const data = bytes(3 * OUTPUT_LIMITS.frameBytes + 100);
    h.output.push(data);
    expect(h.frames.map((frame) => frame.length)).toEqual([OUTPUT_LIMITS.frameBytes, OUTPUT_LIMITS.frameBytes, OUTPUT_LIMITS.frameBytes]);
    await Bun.sleep(OUTPUT_LIMITS.flushMs + 20);
    expect(h.frames.at(-1)?.length).toBe(100);
    expect(h.received()).toEqual(Buffer.from(data));
  });
});

describe("flow control", () => {
  const limits = { frameBytes: 1_000, highWater: 10_000, lowWater: 2_000, reassertBytes: 5_000, capBytes: 50_000 };

  test("holds frames while the consumer is full, pauses at the high-water mark, resumes at the low one", async () => {
    const h = harness(limits);
    for (let i = 0; i < 12; i++) h.output.push(bytes(1_000, i));
    // The consumer took 10 frames (its buffer reached the high-water mark); two wait here.
    expect(h.frames).toHaveLength(10);
    expect(h.output.stats().held).toBe(2_000);
    expect(h.events).toEqual(["pause"]);
    h.drain(5_000);
    // 5 000 in the consumer + 0 here after it took the two that waited: not yet low enough.
    expect(h.frames).toHaveLength(12);
    expect(h.events).toEqual(["pause"]);
    h.drain(6_000);
    expect(h.events).toEqual(["pause", "resume"]);
    expect(h.received()).toEqual(Buffer.concat(Array.from({ length: 12 }, (_, i) => bytes(1_000, i))));
    await h.output.end();
  });

  test("bytes that keep coming while paused wait (nothing is dropped) and the pause is asserted again", () => {
    const h = harness(limits);
    const sent: Uint8Array[] = [];
    for (let i = 0; i < 30; i++) {
      const chunk = bytes(1_000, i);
      sent.push(chunk);
      h.output.push(chunk);
    }
    expect(h.output.stats().held).toBe(20_000);
    // Paused when the consumer held 10 000, asserted again at each further 5 000 held here.
    expect(h.events).toEqual(["pause", "pause", "pause", "pause", "pause"]);
    while (h.output.stats().held > 0 || h.output.stats().paused) h.drain();
    expect(h.received()).toEqual(Buffer.concat(sent));
    expect(h.events.at(-1)).toBe("resume");
  });

  test("past the cap, onOverflow is called once; what was read is still delivered whole", async () => {
    const h = harness(limits);
    const sent: Uint8Array[] = [];
    for (let i = 0; i < 80; i++) {
      const chunk = bytes(1_000, i);
      sent.push(chunk);
      h.output.push(chunk);
    }
    expect(h.overflows()).toBe(1);
    const ended = h.output.end();
    while (h.output.stats().held > 0) h.drain();
    await ended;
    expect(h.received()).toEqual(Buffer.concat(sent));
  });

  test("the consumer's buffer is polled, for consumers with no drain event", async () => {
    const h = harness({ ...limits, pollMs: 5 });
    for (let i = 0; i < 12; i++) h.output.push(bytes(1_000, i));
    expect(h.output.stats().held).toBe(2_000);
    h.passOnQuietly();
    await Bun.sleep(50);
    expect(h.output.stats().held).toBe(0);
    expect(h.frames).toHaveLength(12);
  });

  test("discard drops what waits, ignores later bytes and resumes a paused child", async () => {
    const h = harness(limits);
    for (let i = 0; i < 12; i++) h.output.push(bytes(1_000, i));
    const ended = h.output.end();
    h.output.discard();
    await ended;
    h.output.push(bytes(1_000));
    expect(h.output.stats().held).toBe(0);
    expect(h.events).toEqual(["pause", "resume"]);
  });
});
