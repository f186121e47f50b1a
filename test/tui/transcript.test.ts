import { beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isTitle, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { runLembas, type Sandbox } from "../support/run.ts";
import { type ScreenOptions, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], opts: ScreenOptions = {}) => suite.open(args, opts);

describe.skipIf(!HAVE_TMUX)("the transcript", () => {
  test("an edit is shown as a unified diff with its counts", async () => {
    writeFileSync(join(box.project, "notes.txt"), "alpha\nbeta\ngamma\n");
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_string: "beta", new_string: "BETA changed" } }] }),
      step({ text: "edited" }),
    );
    const screen = await open();
    await screen.type("change beta", "Enter");
    await screen.waitFor("edited");
    const text = screen.text();
    expect(text).toContain("notes.txt: +1 −1");
    expect(text).toContain("-beta");
    expect(text).toContain("+BETA changed");
  });

  test("a command's long output is cut with a line count, never dumped whole", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "seq 1 500" } }] }), step({ text: "counted" }));
    const screen = await open(["--mode", "auto"]);
    await screen.type("count", "Enter");
    await screen.waitFor("counted");
    const text = screen.text();
    expect(text).toContain("… 492 more lines (500 in all)");
    expect(text).not.toContain("│ 250");
  });

  test("a command that exits non-zero is shown as failed, with the line that says its exit code", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "seq 1 40; exit 3" } }] }), step({ text: "it failed" }));
    const screen = await open(["--mode", "auto"]);
    await screen.type("run it", "Enter");
    await screen.waitFor("it failed");
    const text = screen.text();
    expect(text).toContain("✗ Run seq 1 40; exit 3");
    expect(text).toContain("Exit code 3.");
  });

  test("reasoning is shown while it streams, then folded to one line once the answer starts", async () => {
    model.push(step({ reasoning: "Let me think about the user's request carefully here.", text: "The answer.", chunkDelayMs: 10 }));
    const screen = await open();
    await screen.type("think", "Enter");
    await screen.waitFor("The answer.");
    const text = screen.text();
    expect(text).toMatch(/∴ thought( for \d+s)? \(9 words\)/);
    expect(text).not.toContain("carefully here");
  });

  test("the todo list is drawn whole, and redrawn in place as it changes", async () => {
    model.push(
      step({ toolCalls: [{ name: "todo", arguments: { todos: [{ content: "write the parser", status: "in_progress" }, { content: "test it", status: "pending" }] } }] }),
      step({ toolCalls: [{ name: "todo", arguments: { todos: [{ content: "write the parser", status: "completed" }, { content: "test it", status: "in_progress" }] } }] }),
      step({ text: "planned" }),
    );
    const screen = await open();
    await screen.type("plan it", "Enter");
    await screen.waitFor("planned");
    const text = screen.text();
    expect(text).toContain("☰ Todos (1/2 done)");
    expect(text).toContain("☒ write the parser");
    expect(text).toContain("▶ test it");
    expect(text.match(/☰ Todos/g)?.length).toBe(1);
  });

  test("a session title that arrives after the header scrolled away does not redraw the whole screen", async () => {
    model.push({ match: isTitle, text: ["Late", " title"], chunkDelayMs: 600 });
    model.push(step({ text: Array.from({ length: 60 }, (_, i) => `row ${i}`).join("\n\n") }));
    const screen = await open();
    const recording = await screen.record();
    await screen.type("many rows", "Enter");
    await screen.waitFor("row 59");
    for (let i = 0; i < 200 && !recording.bytes().includes("Late title"); i++) await Bun.sleep(25);
    await Bun.sleep(200);
    expect(recording.bytes()).toContain("\x1b]0;Late title");
    expect(recording.bytes()).not.toContain("\x1b[3J");
  });

  test("/theme light draws what is already on the screen again in the light theme's colours", async () => {
    delete box.env.NO_COLOR;
    model.push(step({ text: "# A heading\n\nbody text" }));
    const screen = await open();
    await screen.type("colours", "Enter");
    await screen.waitFor("body text");
    const recording = await screen.record();
    await screen.type("/theme light", "Enter");
    await screen.waitFor("theme: light");
    await Bun.sleep(200);
    // The heading, drawn in the dark theme's accent (256-colour 75), comes again in the light one's (25).
    const redrawn = recording.bytes();
    const heading = redrawn.indexOf("A heading");
    expect(heading).toBeGreaterThan(0);
    expect(redrawn.slice(Math.max(0, heading - 40), heading)).toContain("38;5;25m");
  });

  test("a resize reflows the transcript to the new width", async () => {
    const long = Array.from({ length: 14 }, (_, i) => `word${i}`).join(" ");
    model.push(step({ text: long }));
    const screen = await open([], { columns: 120, rows: 40 });
    await screen.type("long line please", "Enter");
    await screen.waitFor("word13");
    expect(screen.text().split("\n").some((line) => line.includes("word0") && line.includes("word13"))).toBe(true);
    await screen.resize(60, 40);
    await screen.waitFor("test/test-model");
    const lines = screen.text().split("\n");
    expect(lines.every((line) => line.length <= 60)).toBe(true);
    expect(lines.some((line) => line.includes("word0") && line.includes("word13"))).toBe(false);
    expect(screen.text()).toContain("word13");
  });

  test("a resumed 5,000-line transcript stays responsive: typing echoes and a new answer streams", async () => {
    const big = Array.from({ length: 5_000 }, (_, i) => `line ${i} of the long answer`).join("\n\n");
    model.push(step({ text: big }));
    const made = await runLembas(box, ["run", "write a lot"], { cwd: box.project });
    expect(made.code).toBe(0);
    model.push(step({ text: "short and new", chunkDelayMs: 5 }));
    const screen = await open(["-c"]);
    await screen.waitFor("line 4999 of the long answer", 15_000);
    await screen.write("are you there");
    await screen.waitFor("are you there");
    await screen.type("Enter");
    await screen.waitFor("short and new");
  }, 30_000);
});
