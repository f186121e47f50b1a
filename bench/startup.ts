// Start-up of `dist/lembas --version` beside a compiled Bun hello-world built the same way (as build.ts:
// no .env or bunfig.toml read at start), the two run in turn.
// Prints one JSON line: medians and p90s in ms and the ratio of the medians (goal ≤ 1.3).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";

const RUNS = 20;

/** Each command's times, sorted; the two are run in turn (A B A B ...) so that the machine's drift falls on both alike. */
function timeInTurn(a: string[], b: string[]): [number[], number[]] {
  for (let i = 0; i < 3; i++) for (const cmd of [a, b]) Bun.spawnSync(cmd); // warm the page cache
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    for (const [which, cmd] of [a, b].entries()) {
      const start = performance.now();
      const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
      times[which]?.push(performance.now() - start);
      if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${result.exitCode}`);
    }
  }
  return [times[0].sort((x, y) => x - y), times[1].sort((x, y) => x - y)];
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (n: number) => Math.round(n * 100) / 100;

const dir = mkdtempSync(join(tmpdir(), "lembas-bench-"));
try {
  const hello = join(dir, "hello.ts");
  writeFileSync(hello, 'console.log("hello");\n');
  const built = await Bun.build({ entrypoints: [hello], compile: { outfile: join(dir, "hello"), autoloadDotenv: false, autoloadBunfig: false }, minify: true, bytecode: true, format: "esm", splitting: true });
  if (!built.success) throw new Error("hello-world build failed");
  const lembas = process.env.LEMBAS_BIN ?? (await build(join(dir, "lembas")));

  const [base, ours] = timeInTurn([join(dir, "hello")], [lembas, "--version"]);
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
