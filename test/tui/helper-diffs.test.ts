/**
 * A writing helper's edits show their diffs in the transcript under its call, under the task's
 * line, as the session's own edits show theirs.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ChatRequest, contentText, type Reply } from "../support/model.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

const systemOf = (body: ChatRequest) => contentText(body.messages?.[0]?.content);
const isScribe = (body: ChatRequest) => systemOf(body).includes('You work as the agent "scribe"');
/** The scribe's request after it made `done` assistant messages. */
const scribeStep = (done: number, reply: Reply): Reply => ({ ...reply, match: (b) => isScribe(b) && (b.messages ?? []).filter((m) => m.role === "assistant").length === done });
const ownStep = (reply: Reply): Reply => ({ ...reply, match: (b) => (b.tools?.length ?? 0) > 0 && !isScribe(b) });

describe.skipIf(!HAVE_TMUX)("a helper's edits in the terminal", () => {
  test("a writing agent's edit shows its diff under its call, within the task's block", async () => {
    const { box, model } = suite;
    mkdirSync(join(box.project, ".agent", "agents"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "agents", "scribe.md"), "---\nname: scribe\ndescription: Writes notes\ntools: Write, Read\n---\nYou write notes.\n");
    writeFileSync(join(box.project, "notes.txt"), "old line\n");
    model.push(
      ownStep(step({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "rewrite the notes", prompt: "Rewrite notes.txt", agent: "scribe" } }] })),
      scribeStep(0, { toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.txt" } }] }),
      scribeStep(1, { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "by the agent\n" } }] }),
      scribeStep(2, { text: "wrote notes.txt" }),
      ownStep(step({ text: "all done" })),
    );
    const screen = await suite.open(["--mode", "edit"]);
    await screen.type("rewrite the notes", "Enter");
    const shown = await screen.waitFor("all done");
    const lines = shown.split("\n").map((l) => l.trimEnd());
    const task = lines.findIndex((l) => l.startsWith("● Task (scribe)"));
    const at = lines.findIndex((l) => l === "    ● Write notes.txt");
    expect(task).toBeGreaterThanOrEqual(0);
    expect(at).toBeGreaterThan(task);
    expect(lines.slice(at + 1, at + 5)).toEqual(["      ⎿ notes.txt: +1 −1", "        @@ -1,1 +1,1 @@", "        -old line", "        +by the agent"]);
  });
});
