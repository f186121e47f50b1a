import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runInProject } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
});
modelProjectEach((made) => ({ box, model } = made));

const ESC = "\x1b";
const run = (args: string[], env: Record<string, string> = {}) => runInProject(box, args, { env });

/** A promise the test settles when it says, and the function that settles it. */
function held(): { hold: Promise<void>; release(): void } {
  let release = () => {};
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { hold, release };
}

/** Four steps: text and a command, a read, text and an edit, the answer; the first sent once `hold` settles. */
function pushWork(hold?: Promise<void>): void {
  writeFileSync(join(box.project, "a.txt"), "one\ntwo\nthree\n");
  model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }], hold, holdBeforeText: true }),
    step({ text: "I'll look first.", toolCalls: [{ name: "bash", arguments: { command: "printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n'; exit 3" } }] }),
    step({ text: "Now I'll change it.", toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "two", new_string: "TWO" } }] }),
    step({ text: "Done." }),
  );
}

describe("lembas run shows the work (at a pipe)", () => {
  test("stdout holds the answer alone, each step's text a paragraph; stderr the header, the tools and no colour", async () => {
    pushWork();
    // NO_COLOR unset: the pipe alone keeps colour out.
    const result = await run(["--yes", "change a.txt"], { NO_COLOR: "" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("I'll look first.\n\nNow I'll change it.\n\nDone.\n");
    expect(result.stderr).toContain("› Read a.txt\n");
    const err = result.stderr;
    expect(err).not.toContain(ESC);
    expect(err).not.toContain("\r");
    expect(err.split("\n")[0]).toMatch(new RegExp(`^lembas · test/test-model.* · edit mode · ${box.project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} · session ses_[\\w-]+$`));
    expect(err).toContain("› Run printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n'; exit 3\n  │ … 2 lines before\n  │ 3\n  │ 4\n  │ 5\n  │ 6\n  │ 7\n  ⎿ exit 3\n");
    expect(err).toContain("› Edit a.txt\n  ⎿ a.txt: +1 −1\n    @@ -1,3 +1,3 @@\n     one\n    -two\n    +TWO\n     three\n");
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
  });

  test("counts read right: one line before is \"1 line\", not \"1 lines\"", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "printf '1\\n2\\n3\\n4\\n5\\n6\\n'" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "count"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("  │ … 1 line before\n  │ 2\n");
  });

  test("the todo list is shown as the model keeps it, an item a line", async () => {
    const todos = [
      { content: "read the parser", status: "completed" },
      { content: "fix the last token", status: "in_progress" },
      { content: "run the tests", status: "pending" },
    ];
    model.push(step({ toolCalls: [{ name: "todo", arguments: { todos } }] }), step({ text: "Working on it." }));
    const result = await run(["--yes", "fix the parser"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("› Update the task list (1/3 done)\n    [x] read the parser\n    [~] fix the last token\n    [ ] run the tests\n");
  });

  test("a refused command is its line and why; no spinner on a pipe while the model is slow", async () => {
    // The model says nothing for 0.4 s: a spinner (drawn at once, then every 0.1 s) would be on stderr.
    const { hold, release } = held();
    model.push(step({ text: ["Let", " me", " run", " it."], hold, holdBeforeText: true, toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ text: "Could not." }));
    const running = run(["say hi"]);
    await model.waitForRequests(1, 20_000);
    await Bun.sleep(400);
    release();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Let me run it.\n\nCould not.\n");
    expect(result.stderr).toContain("› Run echo hi\n  ⎿ refused: edit mode asks before running commands");
    expect(result.stderr).not.toContain("waiting for the model");
    expect(result.stderr).not.toContain("\r");
  });
});

describe.skipIf(!HAVE_TMUX)("lembas run shows the work (at a terminal)", () => {
  test("a spinner with the time waited, erased once the answer comes", async () => {
    const { hold, release } = held();
    model.push(step({ text: ["Hello", " there."], hold, holdBeforeText: true }));
    screen = await openScreen(box, { args: ["run", "say hello"], cwd: box.project, columns: 200 });
    await screen.waitFor(/waiting for the model \ds/);
    release();
    expect(await screen.exited(20_000)).toBe(0);
    const shown = screen.text();
    expect(shown).not.toContain("waiting for the model");
    expect(shown).toMatch(/^lembas · test\/test-model.* · session ses_[\w-]+\n\nHello there\.$/m);
  }, 20_000);

  test("colours at a terminal, none with NO_COLOR", async () => {
    const colourOf = async (noColor: boolean) => {
      // The first step waits for the recording to begin, so it has everything printed after.
      const { hold, release } = held();
      pushWork(hold);
      if (noColor) box.env.NO_COLOR = "1";
      else delete box.env.NO_COLOR;
      const s = await openScreen(box, { args: ["run", "--yes", "change a.txt"], cwd: box.project, columns: 200 });
      screen = s;
      const recording = await s.record();
      release();
      expect(await s.exited(20_000)).toBe(0);
      const bytes = recording.bytes();
      await s.close();
      screen = null;
      return bytes;
    };
    const coloured = await colourOf(false);
    expect(coloured).toContain(`${ESC}[32m    +TWO`);
    expect(coloured).toContain(`${ESC}[31m    -two`);
    const plain = await colourOf(true);
    expect(plain).toContain("    +TWO");
    expect(plain).not.toMatch(/\x1b\[\d+(;\d+)*m/);
  });

  test("an approval after streamed text leaves the text on the screen", async () => {
    model.push(step({ text: "Let me look first.", toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ text: "It said hi." }));
    screen = await openScreen(box, { args: ["run", "say hi"], cwd: box.project, columns: 200 });
    const asked = await screen.waitFor("allow?");
    expect(asked).toContain("Let me look first.\n");
    expect(asked).toContain("bash wants to run");
    await screen.type("y", "Enter");
    expect(await screen.exited()).toBe(0);
    const shown = screen.text();
    expect(shown).toContain("Let me look first.\n");
    expect(shown).toContain("› Run echo hi\n  │ hi\n  ⎿ exit 0\n\nIt said hi.");
  });
});
