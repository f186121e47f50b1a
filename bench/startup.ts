// Start-up of `dist/lembas --version` beside a compiled Bun hello-world built the same way.
// Prints one JSON line: medians and p90s in ms and the ratio of the medians (goal ≤ 1.3).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";

const RUNS = 20;

function timeRuns(cmd: string[]): number[] {
  for (let i = 0; i < 3; i++) Bun.spawnSync(cmd); // warm the page cache
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
    times.push(performance.now() - start);
    if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${result.exitCode}`);
  }
  return times.sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (n: number) => Math.round(n * 100) / 100;

const dir = mkdtempSync(join(tmpdir(), "lembas-bench-"));
try {
  const hello = join(dir, "hello.ts");
  writeFileSync(hello, 'console.log("hello");\n');
  const built = await Bun.build({ entrypoints: [hello], compile: { outfile: join(dir, "hello") }, minify: true, bytecode: true, format: "esm", splitting: true });
  if (!built.success) throw new Error("hello-world build failed");
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));

  const base = timeRuns([join(dir, "hello")]);
  const ours = timeRuns([lembas, "--version"]);
  const baseMedian = quantile(base, 0.5);
  const oursMedian = quantile(ours, 0.5);
  console.log(
    JSON.stringify({
      bench: "startup",
      runs: RUNS,
      lembas_median_ms: round(oursMedian),
      lembas_p90_ms: round(quantile(ours, 0.9)),
      hello_median_ms: round(baseMedian),
      hello_p90_ms: round(quantile(base, 0.9)),
      ratio: round(oursMedian / baseMedian),
      goal: 1.3,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
