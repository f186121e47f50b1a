import { beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { ROOT, runLembas, type Sandbox } from "../support/run.ts";
import { digitOf, screenSuite, toolResults } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = []) => suite.open(args);

const ask = (questions: object[], why?: string) => step({ toolCalls: [{ name: "ask_user", arguments: { questions, ...(why ? { why } : {}) } }] });

describe.skipIf(!HAVE_TMUX)("cards in the terminal", () => {
  test("an approval denied with feedback: the command does not run and the model is told what to do instead", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch denied.txt" } }] }), step({ text: "will do it the other way" }));
    const screen = await open();
    await screen.type("make a file", "Enter");
    await screen.waitFor("No, and tell the model what to do instead");
    await screen.type(digitOf(screen, "No, and tell the model what to do instead"));
    await screen.waitFor("What should the model do instead?");
    await screen.type("use the write tool, not bash", "Enter");
    await screen.waitFor("will do it the other way");
    expect(existsSync(join(box.project, "denied.txt"))).toBe(false);
    expect(toolResults(model)).toContain("The person denied this bash call. They said: use the write tool, not bash");
    // The person's answer, not the rule that asked: live, resumed, and in sessions show.
    const denial = "⊘ Run touch denied.txt\n  ⎿ denied by you: “use the write tool, not bash”\n";
    expect(screen.text()).toContain(denial);
    expect(screen.text()).not.toContain("asks before");
    await screen.type("C-d");
    await screen.exited();
    const id = /lembas -r (ses_[\w-]+)/.exec(screen.text())?.[1] ?? "";
    const again = await open(["-r", id]);
    await again.waitFor("will do it the other way");
    expect(again.text()).toContain(denial);
    const shown = await runLembas(box, ["sessions", "show", id], { cwd: box.project });
    expect(shown.stdout).toContain("› Run touch denied.txt (denied by you)\n");
  });

  test("a corrected command runs the corrected line once, not the model's", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo one > original.txt" } }] }), step({ text: "ran the corrected one" }));
    const screen = await open();
    await screen.type("write a file", "Enter");
    await screen.waitFor("Edit the command, then run it once");
    await screen.type(digitOf(screen, "Edit the command, then run it once"));
    await screen.waitFor("The command to run instead:");
    await screen.waitFor("│ › echo one > original.txt");
    await screen.type("C-u");
    await screen.waitGone("│ › echo one");
    await screen.type("echo two > corrected.txt", "Enter");
    await screen.waitFor("ran the corrected one");
    expect(readFileSync(join(box.project, "corrected.txt"), "utf8")).toBe("two\n");
    expect(existsSync(join(box.project, "original.txt"))).toBe(false);
    expect(toolResults(model)).toContain("(The person corrected the command to: echo two > corrected.txt)");
  });

  test("an emptied command is not run: the input stays until there is a line, Esc goes back to the options", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo one > original.txt" } }] }), step({ text: "denied then" }));
    const screen = await open();
    await screen.type("write a file", "Enter");
    await screen.waitFor("Edit the command, then run it once");
    await screen.type(digitOf(screen, "Edit the command, then run it once"));
    await screen.waitFor("│ › echo one > original.txt");
    await screen.type("C-u");
    await screen.waitGone("│ › echo one");
    await screen.type("Enter");
    await Bun.sleep(300);
    expect(screen.text()).toContain("The command to run instead:");
    await screen.type("Escape");
    await screen.waitFor("1. Yes, once");
    await screen.type("Escape");
    await screen.waitFor("denied then");
    expect(existsSync(join(box.project, "original.txt"))).toBe(false);
  });

  test("a command of several lines is not offered for editing (the input is one line); a write is not either", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo a > a.txt\necho b > b.txt" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "w.txt", content: "hi\n" } }] }),
      step({ text: "done" }),
    );
    const screen = await open(["--mode", "manual"]);
    await screen.type("two lines", "Enter");
    await screen.waitFor("$ echo a > a.txt");
    expect(screen.text()).not.toContain("Edit the command");
    await screen.type("1");
    await screen.waitFor("w.txt (new file)");
    expect(screen.text()).not.toContain("Edit the command");
    expect(screen.text()).toContain("No, and tell the model what to do instead");
    await screen.type("1");
    await screen.waitFor("done");
    expect(readFileSync(join(box.project, "b.txt"), "utf8")).toBe("b\n");
    expect(readFileSync(join(box.project, "w.txt"), "utf8")).toBe("hi\n");
  });

  test("an MCP tool's approval shows all of its arguments, wrapped, not a title cut at 60 characters", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), `mcp:\n  notes:\n    command: ${process.execPath}\n    args: [${join(ROOT, "test/support/mcp-server.ts")}]\n`);
    const text = `${"all of this must be seen before it is allowed ".repeat(6)}THE-END-OF-IT`;
    model.push(step({ toolCalls: [{ name: "mcp__notes__echo", arguments: { text } }] }), step({ text: "echoed" }));
    const screen = await open();
    await screen.type("echo it", "Enter");
    await screen.waitFor("┌ notes: echo");
    const card = await screen.waitFor("THE-END-OF-IT");
    expect(card).toContain('"text": "all of this must be seen');
    await screen.type(digitOf(screen, "Yes, once"));
    await screen.waitFor("echoed");
  });

  test("a command taller than the screen shows its start, says how many lines are below and above, and scrolls", async () => {
    const command = Array.from({ length: 60 }, (_, i) => `echo line${String(i + 1).padStart(2, "0")}`).join("\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "not run" }));
    const screen = await suite.open([], { rows: 24 });
    await screen.type("run them", "Enter");
    await screen.waitFor("Yes, once");
    const first = screen.text();
    expect(first).toContain("$ echo line01");
    expect(first).toMatch(/↓ \d+ more lines below · PgDn/);
    expect(first).not.toContain("lines above");
    // Everything the card needs to be answered is on the screen: the start of the card and its options.
    expect(first).toContain("┌ Run echo line01");
    expect(first).toContain("No, and tell the model what to do instead");
    await screen.type("NPage");
    const scrolled = await screen.waitFor(/↑ \d+ more lines above · PgUp/);
    expect(scrolled).not.toContain("$ echo line01");
    // Enough pages for the smallest window the card's rows leave (the scroll stops at the end).
    for (let i = 0; i < 20; i++) await screen.type("NPage");
    await screen.waitFor("echo line60");
    await screen.type(digitOf(screen, "No"));
    await screen.waitFor("not run");
  });

  test("a single-choice question: the recommended option first and marked, a digit answers, the model gets the answer", async () => {
    model.push(
      ask([{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres", description: "a server", recommended: true }] }], "to pick the driver"),
      step({ text: "going with sqlite" }),
    );
    const screen = await open();
    await screen.type("set up storage", "Enter");
    await screen.waitFor("Which database?");
    expect(screen.text()).toContain("1. Postgres (recommended)");
    expect(screen.text()).toContain("2. SQLite");
    expect(screen.text()).toContain("to pick the driver");
    await screen.type("2");
    await screen.waitFor("going with sqlite");
    expect(toolResults(model)).toContain("Database (Which database?)\n→ SQLite");
  });

  test("a multiple-choice question: digits tick, Enter answers with the ticked ones", async () => {
    model.push(
      ask([{ header: "Targets", question: "Which platforms?", multiple: true, options: [{ label: "Linux" }, { label: "macOS" }, { label: "Windows" }] }]),
      step({ text: "building for two" }),
    );
    const screen = await open();
    await screen.type("build it", "Enter");
    await screen.waitFor("Which platforms?");
    await screen.type("1");
    await screen.type("3");
    await screen.waitFor("3. [x] Windows");
    expect(screen.text()).toContain("1. [x] Linux");
    expect(screen.text()).toContain("2. [ ] macOS");
    await screen.type("Enter");
    await screen.waitFor("building for two");
    expect(toolResults(model)).toContain("→ Linux, Windows");
  });

  test("a custom answer: typed in the person's own words", async () => {
    model.push(ask([{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }]), step({ text: "duckdb it is" }));
    const screen = await open();
    await screen.type("set up storage", "Enter");
    await screen.waitFor("Type your own answer");
    await screen.type(digitOf(screen, "Type your own answer"));
    await screen.waitFor("Your answer:");
    await screen.type("DuckDB, embedded", "Enter");
    await screen.waitFor("duckdb it is");
    expect(toolResults(model)).toContain("→ in their own words: DuckDB, embedded");
  });

  test("several questions answered one after another: one asked back, one skipped", async () => {
    model.push(
      ask([
        { header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] },
        { header: "Cache", question: "Add a cache?", options: [{ label: "Redis" }, { label: "None" }] },
      ]),
      step({ text: "let me explain first" }),
    );
    const screen = await open();
    await screen.type("set up storage", "Enter");
    await screen.waitFor("Question 1 of 2 · Database");
    await screen.type(digitOf(screen, "Ask the model something first"));
    await screen.waitFor("Your question for the model:");
    await screen.type("which is faster here?", "Enter");
    await screen.waitFor("Question 2 of 2 · Cache");
    expect(screen.text()).toContain("Database → asked back: which is faster here?");
    await screen.type(digitOf(screen, "Skip this question"));
    await screen.waitFor("let me explain first");
    const told = toolResults(model);
    expect(told).toContain("Database (Which database?)\n→ the person asks you: which is faster here?");
    expect(told).toContain("Cache (Add a cache?)\n→ no answer");
  });

  test("Esc dismisses a question card, and the model is told", async () => {
    model.push(ask([{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }] }]), step({ text: "ok, my own judgement" }));
    const screen = await open();
    await screen.type("set up storage", "Enter");
    await screen.waitFor("Which database?");
    await screen.type("Escape");
    await screen.waitFor("ok, my own judgement");
    expect(toolResults(model)).toContain("The person dismissed the questions without answering");
  });

  test("a long plan scrolls in its card; approved into edit mode, the session goes on in edit mode", async () => {
    const steps = Array.from({ length: 40 }, (_, i) => `- step number ${i + 1}`).join("\n");
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Add tests\n\n${steps}\n` } }] }), step({ text: "carrying it out" }));
    const screen = await open(["--mode", "plan"]);
    await screen.waitFor("test/test-model · plan");
    await screen.type("plan the tests", "Enter");
    await screen.waitFor("┌ Plan · .agent/plans/");
    await screen.waitFor(/… lines 1–16 of \d+ · PgUp PgDn to scroll/);
    expect(screen.text()).not.toContain("step number 30");
    await screen.type("NPage");
    await screen.waitFor("step number 25");
    expect(screen.text()).not.toContain("step number 3\n");
    await screen.type(digitOf(screen, "Approve, and carry it out in edit mode"));
    await screen.waitFor("carrying it out");
    await screen.waitFor("test/test-model · edit");
    expect(toolResults(model)).toContain("was approved; the session is now in edit mode");
  });

  test("a plan revised with feedback: the model gets what to change", async () => {
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Migrate\n\n1. copy the data\n2. switch over\n" } }] }), step({ text: "revising" }));
    const screen = await open(["--mode", "plan"]);
    await screen.type("plan the migration", "Enter");
    await screen.waitFor("2. switch over");
    await screen.type(digitOf(screen, "Revise: tell the model what to change"));
    await screen.waitFor("What should change in the plan?");
    await screen.type("add a rollback step", "Enter");
    await screen.waitFor("revising");
    expect(toolResults(model)).toContain("The person wants changes to the plan:\n\nadd a rollback step");
    expect(screen.text()).toContain("test/test-model · plan");
  });

  test("two cards from one step wait their turn: the second shows once the first is answered", async () => {
    model.push(
      step({
        toolCalls: [
          { name: "bash", arguments: { command: "touch first.txt" } },
          { name: "ask_user", arguments: { questions: [{ header: "Name", question: "What name?", options: [{ label: "alpha" }, { label: "beta" }] }] } },
        ],
      }),
      step({ text: "both answered" }),
    );
    const screen = await open();
    await screen.type("do two things", "Enter");
    await screen.waitFor("$ touch first.txt");
    expect(screen.text()).not.toContain("What name?");
    await screen.type("1");
    await screen.waitFor("What name?");
    await screen.waitGone("$ touch first.txt\n");
    await screen.type("2");
    await screen.waitFor("both answered");
    expect(existsSync(join(box.project, "first.txt"))).toBe(true);
    expect(toolResults(model)).toContain("→ beta");
  });

  test("Ctrl-C on a card interrupts its turn: the card is let go of and the composer takes the next prompt", async () => {
    model.push(ask([{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }] }]));
    const screen = await open();
    await screen.type("set up storage", "Enter");
    await screen.waitFor("Which database?");
    await screen.type("C-c");
    await screen.waitFor("interrupted");
    await screen.waitGone("Which database?");
    await screen.waitGone(/working \d/);
    model.push(step({ text: "fresh start" }));
    await screen.type("next one", "Enter");
    await screen.waitFor("fresh start");
  });
});
