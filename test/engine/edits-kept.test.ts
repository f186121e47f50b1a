import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

/** The text of the tool result the model was sent for its n-th step (1-based) of the last request. */
function toolResults(): string[] {
  const last = h.model.requests.at(-1)?.body.messages ?? [];
  return last.filter((m) => m.role === "tool").map((m) => String(m.content));
}

test("a file the person changed between turns is not written over from the model's stale read", async () => {
  const file = join(h.project, "notes.md");
  writeFileSync(file, "first draft\n");
  h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.md" } }] }), step({ text: "read it" }));
  const session = await h.session({ mode: "edit" });
  await session.prompt({ text: "read notes.md" });

  writeFileSync(file, "first draft\nthe person's own paragraph\n");
  h.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "notes.md", content: "model's rewrite\n" } }] }),
    step({ toolCalls: [{ name: "edit", arguments: { path: "notes.md", old_string: "first draft", new_string: "second draft" } }] }),
    step({ text: "tried" }),
  );
  await session.prompt({ text: "rewrite notes.md" });
  expect(readFileSync(file, "utf8")).toBe("first draft\nthe person's own paragraph\n");
  const results = toolResults().slice(-2);
  expect(results).toHaveLength(2);
  for (const r of results) expect(r).toContain("notes.md has changed since you last read it");
});
