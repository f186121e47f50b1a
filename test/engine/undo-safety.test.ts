import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UndoTrash } from "../../src/engine/undo-trash.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

test("the person's edit saved after the write tool, while the model still answers, survives undo", async () => {
  writeFileSync(join(h.project, "a.txt"), "original\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "by the turn\n" } }] }),
    step({ text: "one two three four five six seven eight nine ten", chunkDelayMs: 60 }),
  );
  const session = await h.session({ mode: "auto" });
  const done = session.prompt({ text: "go" });
  await h.model.waitForRequests(3);
  expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("by the turn\n");
  writeFileSync(join(h.project, "a.txt"), "the person's edit, saved in their editor\n");
  await done;
  const undone = session.undo();
  expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("the person's edit, saved in their editor\n");
  expect(undone?.skipped.map((s) => s.path)).toEqual(["a.txt"]);
});

test("a file a command replaced with a directory: undo answers, says why, restores the rest and leaves no temp file", async () => {
  writeFileSync(join(h.project, "out"), "a file\n");
  writeFileSync(join(h.project, "zz.txt"), "zz\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo changed > zz.txt && rm out && mkdir out && echo x > out/x" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "dir" });
  // The person's file in it keeps the directory (an empty one the turn made would go, and the file come back).
  writeFileSync(join(h.project, "out", "mine.txt"), "the person's\n");
  const undone = session.undo();
  expect(undone?.files).toContain("zz.txt");
  expect(undone?.skipped.find((s) => s.path === "out")?.why).toContain("left as it is");
  expect(undone?.skipped.find((s) => s.path === "out/")?.why).toContain("still holds files");
  expect(readFileSync(join(h.project, "zz.txt"), "utf8")).toBe("zz\n");
  expect(existsSync(join(h.project, "out"))).toBe(true);
  expect(readdirSync(h.project).filter((n) => n.includes("lembas-undo"))).toEqual([]);
});

test("/undo as an action answers even when a file cannot be restored, and the turn is done", async () => {
  writeFileSync(join(h.project, "out"), "a file\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "rm out && mkdir out" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "dir" });
  const answer = await session.action("turn_undo_action", () => ({ undone: session.undoNow() }), "undo");
  expect(answer.error).toBeUndefined();
  const turn = h.db.query("SELECT state FROM turns WHERE session_id = ? AND turn_id = ?").get(session.id, "turn_undo_action") as { state: string };
  expect(turn.state).toBe("done");
});

test("what undo overwrites or deletes is put in the session's undo trash first, and the answer says where", async () => {
  writeFileSync(join(h.project, "kept.txt"), "before\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo by-turn > kept.txt && echo new > made.txt" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "change" });
  const undone = session.undo();
  expect([...(undone?.files ?? [])].sort()).toEqual(["kept.txt", "made.txt"]);
  const trash = undone?.trash ?? "";
  expect(trash.startsWith(join(h.box.stateDir, "undo-trash", session.id))).toBe(true);
  expect(readFileSync(join(trash, "kept.txt"), "utf8")).toBe("by-turn\n");
  expect(readFileSync(join(trash, "made.txt"), "utf8")).toBe("new\n");
  expect(readFileSync(join(h.project, "kept.txt"), "utf8")).toBe("before\n");
  expect(existsSync(join(h.project, "made.txt"))).toBe(false);
  await h.engine.delete(session.id);
  expect(existsSync(join(h.box.stateDir, "undo-trash", session.id))).toBe(false);
});

test("the person's edit saved while a command runs cannot be told from the command's: undo reverts it, but keeps it in the trash", async () => {
  writeFileSync(join(h.project, "mine.txt"), "before\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 0.6" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  const done = session.prompt({ text: "run the tests" });
  await Bun.sleep(300);
  writeFileSync(join(h.project, "mine.txt"), "the person's edit during the test run\n");
  await done;
  const undone = session.undo();
  expect(readFileSync(join(undone?.trash ?? "", "mine.txt"), "utf8")).toBe("the person's edit during the test run\n");
}, 30_000);

test("a session's undo trash keeps the newest undos within its bound, the last one always", () => {
  const base = join(h.box.stateDir, "trash-bound");
  mkdirSync(join(base, "p"), { recursive: true });
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(base, "p", "f"), Buffer.alloc(1000, i));
    const trash = new UndoTrash(base, "s", join(base, "p"));
    trash.keep(join(base, "p", "f"));
    made.push(trash.finish(2500) ?? "");
  }
  expect(made.map((d) => existsSync(d))).toEqual([false, true, true]);
  const big = new UndoTrash(base, "s", join(base, "p"));
  big.keep(join(base, "p", "f"));
  expect(existsSync(big.finish(10) ?? "")).toBe(true);
  expect(made.map((d) => existsSync(d))).toEqual([false, false, false]);
});

test("a file or directory a command moved in from outside the project is left where it is by undo, and said", async () => {
  const outside = join(h.box.dir, "notes-outside.txt");
  writeFileSync(outside, "the person's only copy\n");
  mkdirSync(join(h.box.dir, "olddir"));
  writeFileSync(join(h.box.dir, "olddir", "x.txt"), "another only copy\n");
  writeFileSync(join(h.project, "inside.txt"), "moved within\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "warm" });
  h.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: `mv ${outside} notes.txt && mv ${join(h.box.dir, "olddir")} moved-in && mv inside.txt renamed.txt` } }] }),
    step({ text: "done" }),
  );
  await session.prompt({ text: "move" });
  const undone = session.undo();
  expect(readFileSync(join(h.project, "notes.txt"), "utf8")).toBe("the person's only copy\n");
  expect(readFileSync(join(h.project, "moved-in", "x.txt"), "utf8")).toBe("another only copy\n");
  expect(undone?.skipped.map((s) => s.path).sort()).toEqual(["moved-in/x.txt", "notes.txt"]);
  expect(undone?.skipped[0]?.why).toContain("moved in from outside the project");
  // A rename inside the project is still undone.
  expect(readFileSync(join(h.project, "inside.txt"), "utf8")).toBe("moved within\n");
  expect(undone?.files.sort()).toEqual(["inside.txt", "renamed.txt"]);
});

test("after an overflow that re-created a directory, undo of a later turn leaves the person's edit there alone", async () => {
  mkdirSync(join(h.project, "d"));
  writeFileSync(join(h.project, "d", "x"), "one\n");
  const flood = "seq -f j%g 1 9000 | xargs touch && seq -f j%g 1 9000 | xargs rm";
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "warm" });
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `rm -rf d && mkdir d && echo two > d/x && ${flood}` } }] }), step({ text: "done" }));
  await session.prompt({ text: "regenerate d" });
  writeFileSync(join(h.project, "d", "x"), "the person's edit\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: flood } }] }), step({ text: "done" }));
  await session.prompt({ text: "something unrelated with many events" });
  session.undo();
  expect(readFileSync(join(h.project, "d", "x"), "utf8")).toBe("the person's edit\n");
}, 60_000);

test("what another session's command changes while this session's command runs is not undone by this session", async () => {
  writeFileSync(join(h.project, "a.txt"), "the person's\n");
  const s2 = await h.session({ mode: "auto" });
  const s1 = await h.session({ mode: "auto" });
  h.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 0.8" } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 0.2 && echo by-session-1 > a.txt" } }] }),
    step({ text: "done" }),
    step({ text: "done" }),
  );
  const idle = s2.prompt({ text: "two" });
  await h.model.waitForRequests(1);
  await s1.prompt({ text: "one" });
  await idle;
  const undone = s2.undo();
  expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("by-session-1\n");
  expect(undone?.skipped.map((s) => s.path)).toEqual(["a.txt"]);
  expect(undone?.skipped[0]?.why).toContain("at the same time");
}, 30_000);

test("an edit tool's write in another session while this session's command runs is left out of it: only its own turn undoes it", async () => {
  writeFileSync(join(h.project, "a.txt"), "the person's\n");
  const s2 = await h.session({ mode: "auto" });
  const s1 = await h.session({ mode: "auto" });
  h.model.push(
    step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 1" } }] }),
    step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "by session 1\n" } }] }),
    step({ text: "done" }),
    step({ text: "done" }),
  );
  const idle = s2.prompt({ text: "two" });
  await h.model.waitForRequests(1);
  await s1.prompt({ text: "one" });
  await idle;
  expect(s2.undo()).toEqual({ prompt: "two", files: [], skipped: [] });
  expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("by session 1\n");
  expect(s1.undo()?.files).toEqual(["a.txt"]);
  expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("the person's\n");
}, 30_000);

test("undo never writes outside the project through a directory replaced with a symlink since", async () => {
  mkdirSync(join(h.project, "sub"));
  writeFileSync(join(h.project, "sub", "a"), "turn deletes me\n");
  const outside = join(h.box.dir, "outside");
  mkdirSync(outside);
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "true" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "warm" });
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "rm sub/a" } }] }), step({ text: "done" }));
  await session.prompt({ text: "delete" });
  renameSync(join(h.project, "sub"), join(h.project, "sub-old"));
  symlinkSync(outside, join(h.project, "sub"));
  const undone = session.undo();
  expect(existsSync(join(outside, "a"))).toBe(false);
  expect(undone?.skipped.map((s) => s.path)).toEqual(["sub/a"]);
  expect(undone?.skipped[0]?.why).toContain("outside the project");
});

test("a file a command replaced with a named pipe is left alone by undo, which does not hang on it", async () => {
  writeFileSync(join(h.project, "p"), "a file\n");
  h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "rm p && mkfifo p" } }] }), step({ text: "done" }));
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "fifo" });
  const undone = session.undo();
  expect(undone?.skipped).toEqual([{ path: "p", why: expect.stringContaining("not a regular file") }]);
});

test("one undo puts at most its bound in the trash: past it, files still as the turn left them simply go, and it says so", () => {
  const base = join(h.box.stateDir, "trash-one");
  const project = join(base, "p");
  mkdirSync(project, { recursive: true });
  const trash = new UndoTrash(base, "s", project, 2500);
  for (const name of ["a", "b", "c"]) writeFileSync(join(project, name), Buffer.alloc(1000));
  for (const name of ["a", "b", "c"]) trash.take(join(project, name));
  expect(["a", "b", "c"].map((name) => existsSync(join(project, name)))).toEqual([false, false, false]);
  const dir = trash.finish() ?? "";
  expect(readdirSync(dir).sort()).toEqual(["a", "b"]);
  expect(trash.notKept).toBe(1);
});
