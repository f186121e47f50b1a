import { approveAll } from "../../src/engine/interaction.ts";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseStored } from "../../src/engine/records.ts";
import { listMessages } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

function git(cwd: string, ...args: string[]): void {
  const run = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
}

/** Everything under a directory, in bytes. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** The text the model was given for the session's bash calls. */
function bashResults(sessionId: string): string[] {
  return listMessages(h.db, sessionId).flatMap((m) => {
    const stored = parseStored(m);
    return stored?.role === "tool" && stored.body.name === "bash" ? [stored.body.output] : [];
  });
}

test("a command's change to a git-ignored file is undone", async () => {
  writeFileSync(join(h.project, ".gitignore"), "build/\n.env\n");
  mkdirSync(join(h.project, "build"));
  writeFileSync(join(h.project, "build", "out.txt"), "built before\n");
  writeFileSync(join(h.project, ".env"), "SECRET=1\n");
  writeFileSync(join(h.project, "src.txt"), "source\n");
  git(h.project, "init", "-q");
  git(h.project, "add", "-A");
  git(h.project, "commit", "-qm", "start");
  h.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: "echo rebuilt > build/out.txt && rm .env && echo new > build/new.txt" } }] }),
    step({ text: "done" }),
  );
  const session = await h.session({ mode: "auto" });
  session.interaction = approveAll(); // rm .env asks even in auto mode: the person allows it
  await session.prompt({ text: "build" });
  expect(readFileSync(join(h.project, "build", "out.txt"), "utf8")).toBe("rebuilt\n");

  const undone = session.undo();
  expect(undone?.files.sort()).toEqual([".env", "build/new.txt", "build/out.txt"]);
  expect(undone?.skipped).toEqual([]);
  expect(readFileSync(join(h.project, "build", "out.txt"), "utf8")).toBe("built before\n");
  expect(readFileSync(join(h.project, ".env"), "utf8")).toBe("SECRET=1\n");
  expect(existsSync(join(h.project, "build", "new.txt"))).toBe(false);
});

test("a large clean tracked file is restored from the project's git objects; a large untracked one is said as not restorable", async () => {
  const tracked = randomBytes(400 * 1024);
  writeFileSync(join(h.project, "tracked.bin"), tracked);
  writeFileSync(join(h.project, "untracked.bin"), randomBytes(400 * 1024));
  // The index must be written after the file's mtime, or git itself would not trust it as clean.
  await Bun.sleep(30);
  git(h.project, "init", "-q");
  git(h.project, "add", "tracked.bin");
  git(h.project, "commit", "-qm", "start");
  const headBefore = readFileSync(join(h.project, ".git", "index"));
  h.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: "echo over > tracked.bin && echo over > untracked.bin" } }] }),
    step({ text: "done" }),
  );
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "overwrite" });
  const [result] = bashResults(session.id);
  expect(result).toContain("Undo cannot restore what this command did to: untracked.bin");
  expect(result).not.toMatch(/[ ,:]tracked\.bin/);

  const undone = session.undo();
  expect(undone?.files).toEqual(["tracked.bin"]);
  expect(undone?.skipped).toEqual([{ path: "untracked.bin", why: expect.stringContaining("was not kept") }]);
  expect(readFileSync(join(h.project, "tracked.bin")).equals(tracked)).toBe(true);
  expect(readFileSync(join(h.project, "untracked.bin"), "utf8")).toBe("over\n");
  // The project's own git directory was only read.
  expect(readFileSync(join(h.project, ".git", "index")).equals(headBefore)).toBe(true);
});

test("a command that changes nothing in a project of 2,000 files (32 MB) does not copy it into the state dir", async () => {
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(h.project, `dir${d}`));
    for (let f = 0; f < 50; f++) writeFileSync(join(h.project, `dir${d}`, `file${f}.bin`), randomBytes(16 * 1024));
  }
  h.model.push(step({ text: "warm" }), step({ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "warm up the store" });
  await session.idle();
  const before = sizeOf(h.box.stateDir);
  await session.prompt({ text: "do nothing" });
  expect(sizeOf(h.box.stateDir) - before).toBeLessThan(256 * 1024);
  expect(session.undo()).toEqual({ prompt: "do nothing", files: [], skipped: [] });
});

test("a command that rewrites 3,000 clean tracked files is undone from git's objects, all of them", async () => {
  mkdirSync(join(h.project, "many"));
  for (let i = 0; i < 3000; i++) writeFileSync(join(h.project, "many", `f${i}.txt`), `file ${i}\n`);
  await Bun.sleep(30);
  git(h.project, "init", "-q");
  git(h.project, "add", "-A");
  git(h.project, "commit", "-qm", "start");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "for f in many/*.txt; do echo over > $f; done" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "rewrite them" });
  expect(readFileSync(join(h.project, "many", "f1234.txt"), "utf8")).toBe("over\n");

  const undone = session.undo();
  expect(undone?.files).toHaveLength(3000);
  expect(undone?.skipped).toEqual([]);
  expect(readFileSync(join(h.project, "many", "f1234.txt"), "utf8")).toBe("file 1234\n");
  expect(readFileSync(join(h.project, "many", "f2999.txt"), "utf8")).toBe("file 2999\n");
});

test("a tracked file changed with its mtime put back is not taken for its committed blob", async () => {
  const file = join(h.project, "tracked.bin");
  writeFileSync(file, randomBytes(400 * 1024));
  await Bun.sleep(30);
  git(h.project, "init", "-q");
  git(h.project, "add", "tracked.bin");
  git(h.project, "commit", "-qm", "start");
  // The person's edit, same size and same inode, its mtime put back as cp -p or tar would.
  const reference = join(h.box.dir, "reference");
  Bun.spawnSync(["cp", "-p", file, reference]);
  const edited = randomBytes(400 * 1024);
  writeFileSync(file, edited);
  Bun.spawnSync(["touch", "-r", reference, file]);
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo over > tracked.bin" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "overwrite" });
  expect(bashResults(session.id)[0]).toContain("Undo cannot restore what this command did to: tracked.bin");

  const undone = session.undo();
  expect(undone?.files).toEqual([]);
  expect(undone?.skipped.map((s) => s.path)).toEqual(["tracked.bin"]);
  expect(readFileSync(file, "utf8")).toBe("over\n");
});
