import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { restoreTurn, TurnUndo } from "../../src/engine/undo.ts";
import { type EngineHarness, engineHarness } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

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
  const warm = new TurnUndo(h.db, session.id, "t0", h.project, h.box.stateDir);
  await warm.aroundCommand(async () => {});
  const undo = new TurnUndo(h.db, session.id, "t1", h.project, h.box.stateDir);
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
