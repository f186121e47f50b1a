import { afterEach, expect, test } from "bun:test";
import { createOutput, OUTPUT_LIMITS } from "../../src/terminal/output.ts";
import { openPty, type Pty } from "../../src/terminal/pty.ts";

const LINES = 700_000;
/**
 * 100-byte lines, each different: 70 MB, over twice the output's overflow cap (OUTPUT_LIMITS.capBytes)
 * and 66 times its high water, enough to prove both bounds. OPOST off, so the bytes are seq's own.
 */
const SCRIPT = `stty -opost; seq -f '%099.0f' 1 ${LINES}`;
/** The consumer passes bytes on at this rate: slower than the PTY, so flow control must engage. */
const CONSUMER_BYTES_PER_MS = 25_000;

let pty: Pty | null = null;

afterEach(async () => {
  pty?.close();
  await pty?.exited;
  pty = null;
});

test("a 70 MB flood (over twice the overflow cap) read by a slow consumer arrives whole, byte for byte, in bounded memory", async () => {
  const started = performance.now();
  const hash = new Bun.CryptoHasher("sha256");
  let received = 0;
  let buffered = 0;
  let maxBuffered = 0;
  let overflowed = false;
  const flood = openPty({ command: ["sh", "-c", SCRIPT], cwd: "/tmp", env: { PATH: process.env.PATH ?? "" }, cols: 80, rows: 24 });
  pty = flood;
  const output = createOutput({
    sink: {
      send(frame) {
        received += frame.length;
        buffered += frame.length;
        maxBuffered = Math.max(maxBuffered, buffered);
        hash.update(frame);
      },
      bufferedAmount: () => buffered,
    },
    flow: flood,
    onOverflow() {
      overflowed = true;
      flood.close();
    },
  });
  flood.onData((bytes) => output.push(bytes));
  // The reference hash is computed by another process while the flood runs, not after it.
  const reference = Bun.spawn(["sh", "-c", `seq -f '%099.0f' 1 ${LINES} | sha256sum`], { stdout: "pipe" });
  let last = performance.now();
  const consumer = setInterval(() => {
    const now = performance.now();
    buffered = Math.max(0, buffered - (now - last) * CONSUMER_BYTES_PER_MS);
    last = now;
    if (buffered < OUTPUT_LIMITS.lowWater) output.drained();
  }, 5);
  try {
    expect(await flood.exited).toBe(0);
    await output.end();
  } finally {
    clearInterval(consumer);
  }
  const seconds = (performance.now() - started) / 1000;
  const stats = output.stats();
  console.log(JSON.stringify({ flood: "70 MB, slow consumer", seconds: round(seconds), mbPerS: round(received / 1e6 / seconds), ...stats, maxBuffered }));

  expect(LINES * 100).toBeGreaterThanOrEqual(2 * OUTPUT_LIMITS.capBytes);
  expect(overflowed).toBe(false);
  expect(received).toBe(LINES * 100);
  const expected = (await new Response(reference.stdout).text()).split(" ")[0];
  expect(hash.digest("hex")).toBe(expected ?? "");
  // Flow control engaged, and memory stayed bounded: what waited here, and what the consumer held.
  expect(stats.pauses).toBeGreaterThan(0);
  expect(stats.maxHeld).toBeLessThan(2 * 1024 * 1024);
  expect(maxBuffered).toBeLessThanOrEqual(OUTPUT_LIMITS.highWater + OUTPUT_LIMITS.frameBytes);
}, 90_000);

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
