import { afterEach, beforeEach } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ScriptedModel, startModel } from "./model.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const ENTRY = join(ROOT, "src/index.ts");

/**
 * The binary test/run.ts compiled for its run (`LEMBAS_TEST_BIN`): a spawn of it costs a sixth of the
 * CPU of `bun src/index.ts`, which transpiles and links the source at every start. Without it (a bare
 * `bun test`) the tests run the source, so that a change is always what runs.
 */
export const TEST_BIN: string | null = process.env.LEMBAS_TEST_BIN || null;

/** `bun src/index.ts`: for a test that reads the source's module graph, which the binary has not. */
export const SOURCE: readonly string[] = [process.execPath, ENTRY];

/** The command that starts the program: the run's compiled binary, else `bun src/index.ts`. */
export const LEMBAS: readonly string[] = TEST_BIN ? [TEST_BIN] : SOURCE;

/**
 * The program's command and the environment to add to it, profiled into <dir>/<who> when
 * `LEMBAS_PROF=<dir>` (bench/share.ts): Bun's flags on its command line for the source, through
 * `BUN_OPTIONS` for the binary (which takes no flags of Bun's on its command line). `source`: the
 * source even when the run has a binary (SOURCE).
 */
export function profiled(who: string, opts: { source?: boolean } = {}): { command: string[]; env: Record<string, string> } {
  const dir = process.env.LEMBAS_PROF;
  const flags = dir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${join(dir, who)}`] : [];
  if (flags.length === 0) return { command: [...(opts.source ? SOURCE : LEMBAS)], env: {} };
  if (TEST_BIN && !opts.source) return { command: [TEST_BIN], env: { BUN_OPTIONS: flags.join(" ") } };
  return { command: [process.execPath, ...flags, ENTRY], env: {} };
}

/**
 * Where every program a test spawns keeps Bun's transpiled sources. A sandbox's HOME is new, so by
 * default each spawn would transpile the whole program again and write about 150 cache files into
 * it: a third of a second of CPU per spawn, most of the suite's time on two cores.
 */
const TRANSPILER_CACHE = process.env.BUN_RUNTIME_TRANSPILER_CACHE_PATH ?? join(tmpdir(), `bun-transpiler-cache-${process.getuid?.() ?? 0}`);

/** A throwaway config dir and state dir for one test, removed by cleanup(). */
export type Sandbox = { dir: string; configDir: string; stateDir: string; env: Record<string, string>; cleanup(): void };

export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "lembas-test-"));
  const configDir = join(dir, "config");
  const stateDir = join(dir, "state");
  mkdirSync(join(dir, "home"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    LEMBAS_CONFIG_DIR: configDir,
    LEMBAS_STATE_DIR: stateDir,
    NO_COLOR: "1",
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: TRANSPILER_CACHE,
  };
  return { dir, configDir, stateDir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type RunResult = { code: number; stdout: string; stderr: string };

/** Runs `lembas ARGS` (LEMBAS; SOURCE with `source`) to completion in the sandbox's environment. */
export async function runLembas(
  box: Sandbox,
  args: string[],
  opts: { cwd?: string; stdin?: string; env?: Record<string, string>; timeoutMs?: number; source?: boolean } = {},
): Promise<RunResult> {
  const proc = Bun.spawn([...(opts.source ? SOURCE : LEMBAS), ...args], {
    cwd: opts.cwd ?? box.dir,
    env: { ...box.env, ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `lembas run`'s stderr without its header line (model, mode, directory, session), for a test about what follows it. */
export function afterHeader(stderr: string): string {
  return stderr.replace(/^lembas · .* · session \S+\n/, "");
}

export type ProjectSandbox = Sandbox & { project: string };

/** A sandbox with a project directory and a config.yaml whose one connection, `test`, is `modelUrl`. */
export function projectSandbox(modelUrl: string): ProjectSandbox {
  const box = sandbox();
  const project = join(box.dir, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${modelUrl}\n`);
  return { ...box, project };
}

/**
 * A `lembas run` test file's surroundings: before each test a scripted model and a project sandbox
 * whose one connection is it, handed to `bind`; after the test both are closed. Each test has its
 * own, so tests never see each other's requests or files.
 *
 * ```ts
 * let box: ProjectSandbox;
 * let model: ScriptedModel;
 * modelProjectEach((made) => ({ box, model } = made));
 * ```
 */
export function modelProjectEach(bind: (made: { box: ProjectSandbox; model: ScriptedModel }) => void): void {
  let made: { box: ProjectSandbox; model: ScriptedModel } | null = null;
  beforeEach(async () => {
    const model = await startModel();
    made = { box: projectSandbox(model.url), model };
    bind(made);
  });
  afterEach(async () => {
    if (!made) return;
    await made.model.close();
    made.box.cleanup();
    made = null;
  });
}

/** `lembas run ARGS` in the sandbox's project. */
export function runInProject(box: ProjectSandbox, args: string[], opts: { stdin?: string; env?: Record<string, string>; source?: boolean } = {}): Promise<RunResult> {
  return runLembas(box, ["run", ...args], { cwd: box.project, ...opts });
}

/** Reads a process's output as it comes: `waitFor` resolves once the text has appeared. */
export function outputOf(stream: ReadableStream<Uint8Array>): { waitFor(text: string): Promise<void>; seen(): string } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  return {
    async waitFor(text) {
      while (!seen.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`output ended before ${JSON.stringify(text)}: ${seen}`);
        seen += decoder.decode(value, { stream: true });
      }
    },
    seen: () => seen,
  };
}
