import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPty, type Pty } from "../../src/terminal/pty.ts";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { screenOf } from "../support/pty-screen.ts";
import { LEMBAS, projectSandbox, type Sandbox } from "../support/run.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
let pty: Pty | null = null;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
});
afterEach(async () => {
  pty?.close();
  pty = null;
  await model.close();
  box.cleanup();
});

/** `lembas run` in a real terminal: what it prints, and a way to wait for text and answer. */
function runInTerminal(args: string[]) {
  pty = openPty({ command: [...LEMBAS, "run", ...args], cwd: box.project, env: box.env, cols: 200, rows: 50 });
  return screenOf(pty);
}

describe("lembas run at a terminal", () => {
  test("asks with the command and where it runs, not the model's description in its place", async () => {
    const command = "echo secret > out.txt && cat out.txt";
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command, description: "write out.txt" } }] }), step({ text: "ok" }));
    const t = runInTerminal(["make out.txt"]);
    await t.waitFor("allow?");
    const asked = t.screen();
    expect(asked).toContain(`bash wants to run, in ${box.project}:\n  $ ${command}\n  (the model describes it as: write out.txt)\n  edit mode asks before running commands\n`);
    expect(asked).toContain("[a]lways (echo and cat commands, for this session)");
    t.type("n\r");
    expect(await t.exited).toBe(0);
    expect(existsSync(join(box.project, "out.txt"))).toBe(false);
  });

  test("a denial reads as the person's, with what they said", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    const t = runInTerminal(["make a file"]);
    await t.waitFor("allow?");
    t.type("use the Makefile\r");
    expect(await t.exited).toBe(0);
    const after = t.screen().slice(t.screen().indexOf("allow?"));
    expect(after).toContain("⎿ denied by you: “use the Makefile”");
    expect(after).not.toContain("asks before");
  });

  test("an edit is asked with its diff", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `${readFileSync(join(box.configDir, "config.yaml"), "utf8")}mode: manual\n`);
    writeFileSync(join(box.project, "a.txt"), "one\ntwo\nthree\n");
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "two", new_string: "TWO" } }] }),
      step({ text: "ok" }),
    );
    const t = runInTerminal(["change a.txt"]);
    await t.waitFor("allow?");
    expect(t.screen()).toContain("Edit a.txt\n  @@ -1,3 +1,3 @@\n   one\n  -two\n  +TWO\n   three\n  manual mode asks before changing files\n");
    t.type("y\r");
    expect(await t.exited).toBe(0);
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
  });

  test("a question, a plan and an answer the model writes are shown as text: no escape sequence, no bidi override", async () => {
    const hostile = "\x1b]0;owned\x07\x1b[2J\u202e";
    model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { questions: [{ header: `DB${hostile}`, question: `Which${hostile} one?`, options: [{ label: `SQLite${hostile}`, description: `small${hostile}` }, { label: "Postgres" }] }] } }] }),
      step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Plan${hostile}\n- step one${hostile}` } }] }),
      step({ text: `planned${hostile} and done` }),
    );
    const t = runInTerminal(["--mode", "plan", "pick one and plan"]);
    await t.waitFor("number(s), or your own answer:");
    t.type("1\r");
    await t.waitFor("approve?");
    t.type("\r");
    expect(await t.exited).toBe(0);
    const screen = t.screen();
    expect(screen).toContain("DB: Which one?\n  1. SQLite — small\n");
    expect(screen).toContain("# Plan\n- step one\n");
    // The answer too, at a terminal.
    expect(screen).toContain("planned and done");
    expect(screen).not.toContain("]0;owned");
    expect(screen).not.toContain("[2J");
    expect(screen).not.toContain("\u202e");
  });
});

describe("a denial kept for the session at lembas run's prompt", () => {
  test("[ns] refuses the command, and the same command later in the session without asking", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch two.txt" } }] }),
      step({ text: "ok" }),
    );
    const t = runInTerminal(["make files"]);
    await t.waitFor("[ns] no, for this session");
    t.type("ns\r");
    expect(await t.exited).toBe(0);
    expect(t.screen().split("allow?")).toHaveLength(2);
    expect(t.screen()).toContain("you denied touch commands for this session");
    expect(existsSync(join(box.project, "one.txt"))).toBe(false);
    expect(existsSync(join(box.project, "two.txt"))).toBe(false);
  });
});
