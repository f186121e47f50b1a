// PTY throughput, Bun's native PTY through src/terminal: the bare PTY (a callback counting bytes),
// and through the output module with a consumer that keeps up, and with one that base64-encodes
// each frame into a JSON message as the link does. 200 MB each (50 with --quick); one JSON line; medians of RUNS.
import { createOutput } from "../src/terminal/output.ts";
import { openPty } from "../src/terminal/pty.ts";

const RUNS = 3;
/** --quick: 50 MB each instead of 200 (bench/all.ts --quick). */
const MB = process.argv.includes("--quick") ? 50 : 200;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const round = (n: number): number => Math.round(n * 10) / 10;

/**
 * blocks: 100-byte lines written in big blocks (`head -c` from a pipe), OPOST off (the bytes as
 * written); blocks_onlcr: the same with the tty's default \n → \r\n; lines: one write per line, as
 * stdio does on a tty (seq), OPOST off.
 */
const LINE = "0".repeat(99);
const streams = {
  blocks: `stty -opost; yes ${LINE} | head -c ${MB * 1_000_000}`,
  blocks_onlcr: `yes ${LINE} | head -c ${MB * 1_000_000}`,
  lines: `stty -opost; seq -f '%099.0f' 1 ${MB * 10_000}`,
};

type Consumer = "bare" | "output" | "output+json";

async function run(script: string, consumer: Consumer): Promise<number> {
  const started = performance.now();
  const pty = openPty({ command: ["sh", "-c", script], cwd: "/tmp", env: { PATH: process.env.PATH ?? "" }, cols: 80, rows: 24 });
  let bytes = 0;
  let jsonBytes = 0;
  if (consumer === "bare") {
    pty.onData((chunk) => void (bytes += chunk.length));
    await pty.exited;
  } else {
    const output = createOutput({
      sink: {
        send(frame) {
          bytes += frame.length;
          if (consumer === "output+json") {
            const data = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString("base64");
            jsonBytes += JSON.stringify({ jsonrpc: "2.0", method: "_lembas/terminal/output", params: { terminalId: "t1", data } }).length;
          }
        },
        bufferedAmount: () => 0,
      },
      flow: pty,
      onOverflow: () => pty.close(),
    });
    pty.onData((chunk) => output.push(chunk));
    await pty.exited;
    await output.end();
  }
  if (consumer === "output+json" && jsonBytes === 0) throw new Error("nothing encoded");
  return bytes / 1e6 / ((performance.now() - started) / 1000);
}

const result: Record<string, number> = {};
for (const [name, script] of Object.entries(streams)) {
  for (const consumer of ["bare", "output", "output+json"] as const) {
    const rates: number[] = [];
    for (let i = 0; i < RUNS; i++) rates.push(await run(script, consumer));
    result[`${name}_${consumer}_MBps`] = round(median(rates));
  }
}
console.log(JSON.stringify({ bench: "pty", mb: MB, runs: RUNS, ...result }));
