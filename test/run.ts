/**
 * Runs the test files in parallel: `bun test` once per file, a few at a time, each file's output
 * printed whole when it ends, then one closing line ("N passed, N failed").
 *
 *   bun test/run.ts                 every file (npm test)
 *   bun test/run.ts --fast          the fast tier (npm run test:fast): see tiers.ts
 *   bun test/run.ts test/tui        the files under these paths
 *
 * LEMBAS_TEST_JOBS sets how many files run at once (default 4: the files wait on their programs and
 * terminals most of the time, the more so since they spawn the compiled program, so on a machine of
 * two cores four keep both busy; there the whole run took 356 s three at a time and 232 s four at a
 * time, one after the other at load 4–7). Every test keeps to its own temp dirs and
 * tmux sockets, so files do not see each other; the few that would (tiers.ts's ALONE) run alone,
 * at the end.
 *
 * When the files spawn the program, it is compiled once first (`bun build.ts --outfile`, the build
 * `bun run build` makes) and the tests run that binary (LEMBAS_TEST_BIN, test/support/run.ts's
 * LEMBAS): a start of `bun src/index.ts` transpiles and links the source again, and those starts
 * were most of a whole run's CPU. A bare `bun test` runs the source.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ALONE, SLOW, spawns } from "./tiers.ts";

const root = join(import.meta.dir, "..");
const PER_TEST_TIMEOUT_MS = "30000";
/** A file still running after this long is stopped and counted as failed. */
const FILE_LIMIT_MS = 10 * 60_000;

const args = process.argv.slice(2);
const fast = args.includes("--fast");
const paths = args.filter((a) => a !== "--fast");

function testFiles(): string[] {
  const glob = new Bun.Glob("test/**/*.test.ts");
  const all = [...glob.scanSync({ cwd: root })].sort();
  const chosen = paths.length === 0 ? all : all.filter((f) => paths.some((p) => f === p || f.startsWith(`${p.replace(/\/$/, "")}/`)));
  if (!fast) return chosen;
  return chosen.filter((f) => !SLOW.includes(f) && !spawns(readFileSync(join(root, f), "utf8"), join(root, f)));
}

/** The slow files first, in their order; then the rest, largest first. */
function scheduled(files: string[]): string[] {
  const slow = SLOW.filter((f) => files.includes(f));
  const rest = files.filter((f) => !SLOW.includes(f)).sort((a, b) => statSync(join(root, b)).size - statSync(join(root, a)).size);
  return [...slow, ...rest];
}

/**
 * Where the tests' temp dirs go: a tmpfs where the machine has one that runs programs. On this
 * machine's ext4, making and deleting files (the inotify floods, a project of 3,000 files, every
 * test's sandbox) cost six times the CPU it costs there. A TMPDIR the person set is kept.
 */
function scratchDir(): string | null {
  if (process.env.TMPDIR) return null;
  let dir: string;
  try {
    dir = mkdtempSync("/dev/shm/tests-");
  } catch {
    return null;
  }
  // As /tmp: tests that run a program as another user (setpriv) reach their dirs through it.
  chmodSync(dir, 0o1777);
  const probe = join(dir, "probe.sh");
  writeFileSync(probe, "#!/bin/sh\nexit 0\n");
  chmodSync(probe, 0o755);
  try {
    if (Bun.spawnSync([probe]).exitCode === 0) return dir;
  } catch {
    // mounted noexec: the system's temp dir then
  }
  rmSync(dir, { recursive: true, force: true });
  return null;
}

const scratch = scratchDir();
/** What the run made and removes at its end: the scratch dir, the program's build dir. */
const made: string[] = scratch ? [scratch] : [];
const removeMade = () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
};
// A tmpfs holds memory: what the run left there goes with it, however it ends.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    removeMade();
    process.exit(130);
  });
}

type Outcome = { file: string; code: number; pass: number; fail: number; skip: number; ms: number; output: string };

function count(output: string, word: string): number {
  const match = output.match(new RegExp(`^\\s*(\\d+) ${word}$`, "m"));
  return match ? Number(match[1]) : 0;
}

/**
 * The program compiled into a temp dir of its own, when some of the files spawn it; else null.
 * A build that fails throws its one line: every file that spawns the program would fail.
 */
async function buildProgram(files: string[]): Promise<string | null> {
  if (!files.some((f) => spawns(readFileSync(join(root, f), "utf8"), join(root, f)))) return null;
  const dir = mkdtempSync(join(scratch ?? tmpdir(), "lembas-bin-"));
  made.push(dir);
  const bin = join(dir, "lembas");
  const build = Bun.spawn([process.execPath, join(root, "build.ts"), "--outfile", bin], { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code === 0 && existsSync(bin)) return bin;
  const said = `${err}\n${out}`.split("\n").find((line) => /error/i.test(line)) ?? `${err}\n${out}`.split("\n").find((line) => line.trim() !== "");
  throw new Error(`The tests did not run: building the program they spawn (bun build.ts --outfile) failed: ${said?.trim() ?? `exit code ${code}`}`);
}

async function runFile(file: string, bin: string | null): Promise<Outcome> {
  const started = performance.now();
  const env: Record<string, string | undefined> = { ...process.env, ...(scratch ? { TMPDIR: scratch } : {}) };
  if (bin) env.LEMBAS_TEST_BIN = bin;
  else delete env.LEMBAS_TEST_BIN;
  const child = Bun.spawn([process.execPath, "test", "--timeout", PER_TEST_TIMEOUT_MS, `./${file}`], {
    env,
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), FILE_LIMIT_MS);
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const code = await child.exited;
  clearTimeout(timer);
  const output = `${out}${err}`;
  const ms = performance.now() - started;
  const limit = ms >= FILE_LIMIT_MS ? `\n${file} was stopped after ${FILE_LIMIT_MS / 60_000} minutes\n` : "";
  return { file, code, pass: count(output, "pass"), fail: count(output, "fail"), skip: count(output, "skip"), ms, output: output + limit };
}

async function main(): Promise<number> {
  const files = scheduled(testFiles());
  if (files.length === 0) {
    console.error(`No test file matches ${paths.join(" ")}.`);
    return 1;
  }
  const jobs = Number(process.env.LEMBAS_TEST_JOBS) || 4;
  const started = performance.now();
  let bin: string | null;
  try {
    bin = await buildProgram(files);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
  const alone = files.filter((f) => ALONE.includes(f));
  const queue = files.filter((f) => !ALONE.includes(f));
  const outcomes: Outcome[] = [];
  async function worker(from: string[]): Promise<void> {
    for (let file = from.shift(); file !== undefined; file = from.shift()) {
      const outcome = await runFile(file, bin);
      outcomes.push(outcome);
      process.stdout.write(`\n${relative(root, join(root, file))} (${(outcome.ms / 1000).toFixed(1)} s):\n${outcome.output.trimEnd()}\n`);
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, () => worker(queue)));
  await worker(alone);
  const failed = outcomes.filter((o) => o.code !== 0 || o.fail > 0);
  const sum = (key: "pass" | "fail" | "skip") => outcomes.reduce((n, o) => n + o[key], 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const summed = (outcomes.reduce((n, o) => n + o.ms, 0) / 1000).toFixed(0);
  console.log(`\n${files.length} files, ${jobs} at a time, ${seconds} s (the files' own times summed: ${summed} s)${bin ? ", against the compiled program" : ""}.`);
  for (const o of failed) console.log(`failed: ${o.file}${o.fail === 0 ? ` (exit code ${o.code})` : ""}`);
  // A file that failed without a failing test (it did not load, or was stopped) counts as one failure.
  const failures = sum("fail") + failed.filter((o) => o.fail === 0).length;
  console.log(`${sum("pass")} passed, ${failures} failed${sum("skip") > 0 ? `, ${sum("skip")} skipped` : ""}`);
  return failed.length > 0 ? 1 : 0;
}

const code = await main();
removeMade();
process.exit(code);
