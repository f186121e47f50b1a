import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, ofType, person, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const edits = [
  { old_string: "one", new_string: "1" },
  { old_string: "three", new_string: "3" },
];

test("a multi_edit is undone with its turn, byte for byte", async () => {
  writeFileSync(join(h.project, "n.txt"), "one\ntwo\nthree\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "n.txt" } }] }),
    step({ toolCalls: [{ name: "multi_edit", arguments: { path: "n.txt", edits } }] }),
    step({ text: "done" }),
  );
  const session = await h.session();
  await session.prompt({ text: "numbers" });
  expect(readFileSync(join(h.project, "n.txt"), "utf8")).toBe("1\ntwo\n3\n");
  expect(ofType(h.events(session), "tool_end")[1]?.diffs?.[0]).toMatchObject({ oldText: "one\ntwo\nthree\n", newText: "1\ntwo\n3\n" });
  expect(session.undo()?.files).toEqual(["n.txt"]);
  expect(readFileSync(join(h.project, "n.txt"), "utf8")).toBe("one\ntwo\nthree\n");
});

test("a protected file asks in edit mode, with the whole change as the approval's diff", async () => {
  writeFileSync(join(h.project, ".env"), "one\ntwo\nthree\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: ".env" } }] }),
    step({ toolCalls: [{ name: "multi_edit", arguments: { path: ".env", edits } }] }),
    step({ text: "done" }),
  );
  const session = await h.session();
  const who = person([{ outcome: "once" }, { outcome: "deny" }]);
  session.interaction = who;
  await session.prompt({ text: "numbers" });
  const asked = who.asked.find((r) => r.toolName === "multi_edit");
  expect(asked?.reason).toContain("is a protected path");
  expect(asked?.title).toBe("Edit .env (2 edits)");
  expect(asked?.diffs).toEqual([{ path: join(h.project, ".env"), oldText: "one\ntwo\nthree\n", newText: "1\ntwo\n3\n" }]);
  expect(readFileSync(join(h.project, ".env"), "utf8")).toBe("one\ntwo\nthree\n");
});

test("edits that cannot apply are not put to the person: refused with why, before asking", async () => {
  writeFileSync(join(h.project, ".env"), "one\ntwo\nthree\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: ".env" } }] }),
    step({ toolCalls: [{ name: "multi_edit", arguments: { path: ".env", edits: [{ old_string: "one", new_string: "1" }, { old_string: "four", new_string: "4" }] } }] }),
    step({ toolCalls: [{ name: "edit", arguments: { path: ".env", old_string: "five", new_string: "5" } }] }),
    step({ text: "done" }),
  );
  const session = await h.session();
  const who = person([{ outcome: "once" }, { outcome: "once" }, { outcome: "once" }]);
  session.interaction = who;
  await session.prompt({ text: "numbers" });
  expect(who.asked.map((r) => r.toolName)).toEqual(["read"]);
  const denied = ofType(h.events(session), "tool_denied");
  expect(denied.map((d) => d.name)).toEqual(["multi_edit", "edit"]);
  expect(denied[0]?.reason).toContain("Edit 2 of 2");
  expect(denied[1]?.reason).toContain("old_string was not found in .env");
  expect(readFileSync(join(h.project, ".env"), "utf8")).toBe("one\ntwo\nthree\n");
});
