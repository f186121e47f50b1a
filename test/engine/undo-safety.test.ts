import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
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
