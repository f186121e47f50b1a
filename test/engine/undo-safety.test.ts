import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
  const undone = session.undo();
  expect(undone?.files).toContain("zz.txt");
  expect(undone?.skipped.find((s) => s.path === "out")?.why).toContain("directory");
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
