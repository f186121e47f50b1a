import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FollowedProjects } from "../../src/engine/followed-projects.ts";
import { restoreTurn, TurnUndo } from "../../src/engine/undo.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
let projects: FollowedProjects;
beforeEach(async () => {
  h = await engineHarness();
  projects = new FollowedProjects(h.box.stateDir);
});
afterEach(() => {
  projects.forgetAll();
  return h.close();
});

function git(cwd: string, ...args: string[]): void {
  const run = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
}

test("a command's files are stamped as it left them before anything is awaited (reading git's objects)", async () => {
  writeFileSync(join(h.project, "tracked.txt"), "committed\n");
  writeFileSync(join(h.project, "other.txt"), "before\n");
  await Bun.sleep(20);
  git(h.project, "init", "-q");
  git(h.project, "add", "tracked.txt");
  git(h.project, "commit", "-qm", "one");
  const session = await h.session();
  const warm = new TurnUndo(h.db, session.id, "t0", h.project, projects);
  await warm.aroundCommand(async () => {});
  const undo = new TurnUndo(h.db, session.id, "t1", h.project, projects);
  const running = undo.aroundCommand(async () => {
    writeFileSync(join(h.project, "tracked.txt"), "by the command\n");
    writeFileSync(join(h.project, "other.txt"), "by the command\n");
  });
  // The command has ended; its changes are being recorded (git is read for tracked.txt).
  await Bun.sleep(0);
  writeFileSync(join(h.project, "other.txt"), "the person's edit\n");
  await running;
  const restored = restoreTurn(h.db, session.id, "t1", h.project, h.box.stateDir);
  expect(readFileSync(join(h.project, "other.txt"), "utf8")).toBe("the person's edit\n");
  expect(restored.files).toEqual(["tracked.txt"]);
});

test("turns that only use the edit tools are trimmed too: a session keeps at most 20 turns of undo data", async () => {
  const session = await h.session();
  const file = join(h.project, "big.bin");
  for (let i = 0; i < 25; i++) {
    writeFileSync(file, Buffer.alloc(1024, i));
    const undo = new TurnUndo(h.db, session.id, `t${i}`, h.project, projects);
    undo.beforeChange(file);
    writeFileSync(file, Buffer.alloc(1024, 255));
    undo.afterChange(file);
    undo.finish();
  }
  const row = h.db.query("SELECT count(DISTINCT turn_id) AS turns FROM undo_files WHERE session_id = ?").get(session.id) as { turns: number };
  expect(row.turns).toBe(20);
});

test("a turn keeps at most its byte bound of earlier content; past it a file is said as not restorable", async () => {
  const session = await h.session();
  const undo = new TurnUndo(h.db, session.id, "t", h.project, projects, 1500);
  for (const name of ["a", "b"]) {
    const file = join(h.project, name);
    writeFileSync(file, Buffer.alloc(1000, 1));
    undo.beforeChange(file);
    writeFileSync(file, "changed\n");
    undo.afterChange(file);
  }
  undo.finish();
  const restored = restoreTurn(h.db, session.id, "t", h.project, h.box.stateDir);
  expect(restored.files).toEqual(["a"]);
  expect(restored.skipped).toEqual([{ path: "b", why: expect.stringContaining("the turn's undo data passed") }]);
});

test("undoing a turn whose undo data was trimmed says so instead of answering that nothing changed", async () => {
  const session = await h.session();
  const file = join(h.project, "f");
  for (let i = 0; i < 22; i++) {
    writeFileSync(file, `${i}\n`);
    const undo = new TurnUndo(h.db, session.id, `t${i}`, h.project, projects);
    undo.beforeChange(file);
    writeFileSync(file, "changed\n");
    undo.afterChange(file);
    undo.finish();
  }
  const restored = restoreTurn(h.db, session.id, "t0", h.project, h.box.stateDir);
  expect(restored.files).toEqual([]);
  expect(restored.skipped).toEqual([{ path: "(the whole turn)", why: expect.stringContaining("dropped") }]);
  expect(restoreTurn(h.db, session.id, "t0", h.project, h.box.stateDir).skipped).toEqual([]);
});

function inotifyFds(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === "anon_inode:inotify";
    } catch {
      return false;
    }
  }).length;
}

/** A turn of the session that runs one command, so that its engine follows the project. */
async function commandTurn(harness: EngineHarness): Promise<void> {
  harness.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }), step({ text: "done" }));
  const session = await harness.session({ mode: "auto" });
  await session.prompt({ text: "run a command" });
}

test("the engine's stop closes the inotify instances of the projects it followed", async () => {
  const before = inotifyFds();
  await commandTurn(h);
  expect(inotifyFds()).toBe(before + 1);
  await h.engine.stop();
  expect(inotifyFds()).toBe(before);
});

test("two engines in one process follow their projects apart: one's stop leaves the other's followed", async () => {
  const other = await engineHarness();
  const before = inotifyFds();
  try {
    await commandTurn(h);
    await commandTurn(other);
    expect(inotifyFds()).toBe(before + 2);
  } finally {
    await other.close();
  }
  expect(inotifyFds()).toBe(before + 1);
  await h.engine.stop();
  expect(inotifyFds()).toBe(before);
});

test("the legacy snapshot store is removed, in the background of the first command", async () => {
  const legacy = join(h.box.stateDir, "snapshots");
  mkdirSync(join(legacy, "p"), { recursive: true });
  writeFileSync(join(legacy, "p", "x"), "old");
  const session = await h.session();
  const undo = new TurnUndo(h.db, session.id, "t", h.project, projects);
  // Removed in the background: the command runs meanwhile (when is up to the machine, so only the end is checked).
  let ran = false;
  await undo.aroundCommand(async () => {
    ran = true;
  });
  expect(ran).toBe(true);
  for (let waited = 0; existsSync(legacy) && waited < 5_000; waited += 25) await Bun.sleep(25);
  expect(existsSync(legacy)).toBe(false);
});
