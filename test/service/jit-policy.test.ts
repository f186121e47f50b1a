/**
 * The compiled binary starts under raised JIT tier-up thresholds (src/jit-policy.ts) and has the
 * normal ones back once it is up: the service once it serves (not while it starts, whose run-once
 * code would otherwise be compiled and stay resident while it idles), a one-shot while its turn
 * runs. A preloaded probe (test/support/jit-policy-probe.ts) starts the program the binary's way
 * and lists the calls that set the thresholds back.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startModel, type ScriptedModel } from "../support/model.ts";
import { LEMBAS, projectSandbox, runLembas, type ProjectSandbox } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/jit-policy-probe.ts");

let model: ScriptedModel | null = null;
let box: ProjectSandbox | null = null;
afterEach(async () => {
  await model?.close();
  box?.cleanup();
  model = box = null;
});

/** The probe's lines: each call that set the JIT policy. */
function calls(file: string): { scale: number; socket: boolean }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as { scale: number; socket: boolean });
}

test("lembas serve has the normal thresholds back once it serves, and not before", async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  const out = join(box.dir, "jit.jsonl");
  const socket = join(box.stateDir, "service.sock");
  const proc = Bun.spawn([...LEMBAS, "serve"], {
    cwd: box.project,
    // A deadline of 1 ms, as every other command has (1.5 s): one the service kept would pass before its socket exists.
    env: { ...box.env, BUN_OPTIONS: `--preload ${PROBE}`, PROBE_OUT: out, PROBE_SOCKET: socket, LEMBAS_TEST_STARTED_UP_MS: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    for (let i = 0; i < 400 && calls(out).length === 0 && proc.exitCode === null; i++) await Bun.sleep(25);
    expect(calls(out)).toEqual([{ scale: 1, socket: true }]);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}, 20_000);

test("a one-shot whose turn outlasts the start has the normal thresholds back while the turn runs", async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  const out = join(box.dir, "jit.jsonl");
  // 30 chunks 100 ms apart: the turn runs for 3 s, past the 1.5 s a command that never says it is up is given.
  model.push({ text: Array.from({ length: 30 }, (_, i) => `w${i} `), chunkDelayMs: 100 });
  const result = await runLembas(box, ["run", "hi"], { cwd: box.project, env: { BUN_OPTIONS: `--preload ${PROBE}`, PROBE_OUT: out } });
  expect(result.code).toBe(0);
  expect(calls(out).map((c) => c.scale)).toEqual([1]);
}, 20_000);
