// What undo costs a bash call: `true` run as the bash tool runs it, with and without the turn's
// undo around it (follow the project before, see what changed after), in a 10,000-file project
// all committed to git and in the same project without git or .gitignore. Interleaved rounds,
// medians; beside them, what following the project by walking it (no inotify) adds. Also the
// state dir's growth: after the no-op rounds, and after one command that overwrites 50 files,
// against the bytes it wrote and those of the files' pre-images.
// One JSON line; goals: ratio ≤ 1.2 for the no-op, the state dir growing by no more than what changed.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/store/db.ts";
import { insertSession } from "../src/store/sessions.ts";
import { runCommand } from "../src/tools/bash.ts";
import { ProjectFiles } from "../src/engine/project-files.ts";
import { FollowedProjects } from "../src/engine/followed-projects.ts";
import { TurnUndo } from "../src/engine/undo.ts";
import { LIMITS } from "./goals.ts";

const FILES = 10_000;
const ROUNDS = 61;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round2 = (n: number) => Math.round(n * 100) / 100;

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

function makeProject(dir: string, withGit: boolean): void {
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, `pkg${d % 10}`, `mod${d}`), { recursive: true });
    for (let f = 0; f < FILES / 100; f++) {
      writeFileSync(join(dir, `pkg${d % 10}`, `mod${d}`, `file${f}.ts`), `export const v${f} = "${"x".repeat(500 + ((d * 31 + f) % 1500))}";\n`);
    }
  }
  if (!withGit) return;
  Bun.spawnSync(["sleep", "0.05"]);
  for (const args of [["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "all"]]) {
    Bun.spawnSync(["git", ...args], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  }
}

async function measure(withGit: boolean) {
  const base = mkdtempSync(join(tmpdir(), "lembas-bench-undo-"));
  const project = join(base, "project");
  const stateDir = join(base, "state");
  mkdirSync(project);
  makeProject(project, withGit);
  const db = openDb(join(stateDir, "lembas.db"));
  const sessionId = "ses_bench";
  insertSession(db, { id: sessionId, root: project, cwd: project, mode: "auto", model: null, effort: "medium", origin: "terminal" });
  const signal = new AbortController().signal;
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const command = (line: string) => runCommand(line, { cwd: project, env, signal, timeoutMs: 60_000, onOutput() {} });
  let turn = 0;
  const projects = new FollowedProjects(stateDir);
  const undone = (line: string) => new TurnUndo(db, sessionId, `turn${turn++}`, project, projects).aroundCommand(() => command(line));

  const started = performance.now();
  await undone("true");
  const firstMs = performance.now() - started;
  const stateBefore = sizeOf(stateDir);
  const plain: number[] = [];
  const withUndo: number[] = [];
  const timed = async (into: number[], run: () => Promise<unknown>) => {
    const at = performance.now();
    await run();
    into.push(performance.now() - at);
  };
  for (let i = 0; i < ROUNDS; i++) {
    // Which goes first alternates, so neither always runs on the other's warm caches.
    const pair = [() => timed(plain, () => command("true")), () => timed(withUndo, () => undone("true"))];
    if (i % 2) pair.reverse();
    for (const run of pair) await run();
  }
  const noopGrowth = sizeOf(stateDir) - stateBefore;
  const beforeChange = sizeOf(stateDir);
  const preImageBytes = Array.from({ length: 50 }, (_, i) => statSync(join(project, "pkg0", "mod0", `file${i}.ts`)).size).reduce((a, b) => a + b, 0);
  await undone("for i in $(seq 0 49); do head -c 2048 /dev/zero | tr '\\0' y > pkg0/mod0/file$i.ts; done");
  const changeGrowth = sizeOf(stateDir) - beforeChange;
  const watching = projects.filesOf(project).watching;
  // Where there is no inotify (not Linux, the watch limit reached) each sync walks the project.
  const walker = new ProjectFiles(project, { inotify: false });
  walker.end(walker.begin());
  const walks: number[] = [];
  for (let i = 0; i < 11; i++) await timed(walks, async () => walker.end(walker.begin()));
  projects.forgetAll();
  db.close();
  rmSync(base, { recursive: true, force: true });
  const p = median(plain);
  const u = median(withUndo);
  return {
    watching,
    plainMs: round2(p),
    undoMs: round2(u),
    ratio: round2(u / p),
    firstCallMs: round2(firstMs),
    withoutInotifyOverheadMs: round2(median(walks)),
    stateGrowthNoopBytes: noopGrowth,
    writtenBytes: 50 * 2048,
    preImageBytes,
    stateGrowthChangeBytes: changeGrowth,
  };
}

const git = await measure(true);
const noGit = await measure(false);
console.log(JSON.stringify({ bench: "undo", files: FILES, rounds: ROUNDS, git, noGit, goals: LIMITS.undo }));
