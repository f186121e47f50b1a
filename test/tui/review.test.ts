import { beforeEach, describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { afterHeader, runLembas, type Sandbox } from "../support/run.ts";
import { type ScreenOptions, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite();
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], opts: ScreenOptions = {}) => suite.open(args, opts);

function paneTitle(screen: Screen): string {
  return Bun.spawnSync(["tmux", "-L", screen.socket, "display-message", "-p", "-t", "0", "#{pane_title}"]).stdout.toString().trim();
}

const lines = (text: string) => text.split("\n").map((l) => l.trimEnd());

describe.skipIf(!HAVE_TMUX)("review: what the model writes cannot drive the terminal", () => {
  test("escape sequences in the model's answer and a command's output neither retitle the terminal nor clear it", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "printf 'out \\033]2;BYBASH\\007 \\033[2J done\\n'" } }] }),
      step({ text: ["first words \x1b]0;PWNED\x07 then", " \x1b[2J\x1b[H cleared? \x1b]2;AGAIN\x1b\\ end of answer"] }),
    );
    const screen = await open(["--mode", "auto"]);
    await screen.waitFor("test/test-model");
    await screen.type("go", "Enter");
    await screen.waitFor("end of answer");
    // The window's title is the session's (set by lembas itself), never one the text carried.
    expect(paneTitle(screen)).not.toMatch(/BYBASH|PWNED|AGAIN/);
    const text = screen.text();
    // Nothing was cleared: the prompt and the command's block are still above the answer.
    expect(text).toContain("› go");
    expect(text).toContain("first words  then");
    expect(text).toContain("│ out   done");
    expect(text).not.toContain("PWNED");
  });
});

describe.skipIf(!HAVE_TMUX)("review: an answer cut into parts reads as the whole would", () => {
  test("a ~~~ line inside a ``` fence does not close it, nor does ``` inside a ```` fence", async () => {
    const answer = "Look:\n\n```\n~~~\n\ninside one\n```\n\nafter one\n\n````md\n```js\ncode\n\ninside two\n```\n````\n\nafter two";
    model.push(step({ text: answer, chunkDelayMs: 2 }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("show", "Enter");
    await screen.waitFor("after two");
    await Bun.sleep(200);
    const shown = lines(screen.text());
    const at = (t: string) => shown.findIndex((l) => l.trim() === t);
    // Each fence is drawn as one code block: its closing line comes before the paragraph after it.
    const fenceLines = shown.map((l, i) => (/^`{3,}/.test(l) ? i : -1)).filter((i) => i >= 0);
    expect(fenceLines.filter((i) => i > at("after one") && i < at("after two")).length).toBe(2);
    expect(fenceLines.filter((i) => i > at("after two")).length).toBe(0);
    expect(fenceLines.filter((i) => i > at("Look:") && i < at("after one")).length).toBe(2);
  });
});

describe("review: the words after lembas", () => {
  test("a prompt on stdin that starts with a dash (a markdown list) is the prompt, not an option", async () => {
    const r = await runLembas(box, [], { cwd: box.project, stdin: "- fix the list\n- and this one\n" });
    // Nothing said but the session's closing line.
    expect(afterHeader(r.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(r.code).toBe(0);
    expect(JSON.stringify(model.requests.at(-1)?.body.messages?.at(-1))).toContain("- fix the list");
  });

  test("after --, --help is the prompt", async () => {
    // `bun src/index.ts -- X` drops its first `--` (the compiled lembas does not): the second is the program's.
    const r = await runLembas(box, ["--", "--", "--help"], { cwd: box.project });
    expect(r.stdout).not.toContain("USAGE");
    expect(r.code).toBe(0);
    expect(JSON.stringify(model.requests.at(-1)?.body.messages?.at(-1))).toContain("--help");
  });

  test("a short word two edits from a subcommand is a prompt (test is not trust); one edit is still a typo", async () => {
    const test = await runLembas(box, ["test"], { cwd: box.project });
    // Nothing said but the session's closing line.
    expect(afterHeader(test.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(test.code).toBe(0);
    const rum = await runLembas(box, ["rum"], { cwd: box.project });
    expect(rum.code).toBe(2);
    expect(rum.stderr).toContain("did you mean run?");
    const sevre = await runLembas(box, ["sevre"], { cwd: box.project });
    expect(sevre.stderr).toContain("did you mean serve?");
  });
});

describe.skipIf(!HAVE_TMUX)("review: wide text never tears the frame", () => {
  test("emoji with skin tones (four columns in tmux, two to the library) stream without lines drawn twice", async () => {
    const answer = Array.from({ length: 40 }, (_, i) => `${i} thumb 👍🏽 ok`).join(" ");
    model.push(step({ text: answer, chunkDelayMs: 5 }));
    const screen = await open([], { columns: 60, rows: 20 });
    await screen.waitFor("test/test-model");
    await screen.type("go", "Enter");
    await screen.waitFor("39 thumb");
    await screen.waitFor("% context");
    await Bun.sleep(300);
    const text = screen.text();
    expect(text.match(/(^|\s)35 thumb/gm)?.length).toBe(1);
    expect(text.match(/test\/test-model · edit/g)?.length).toBe(1);
  });
});

describe.skipIf(!HAVE_TMUX)("review: quitting while a turn runs", () => {
  test("SIGTERM during an approval: exit 0, the last frame has neither the card nor 'working', and the session resumes", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }));
    const screen = await open(["--mode", "manual"]);
    await screen.waitFor("test/test-model");
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    process.kill(screen.pid(), "SIGTERM");
    expect(await screen.exited()).toBe(0);
    const text = screen.text();
    expect(text).toContain("Resume it with");
    expect(text).not.toContain("Yes, once");
    expect(text).not.toContain("esc to interrupt");
    expect(text).toContain("interrupted");
    const id = /lembas -r (ses_[\w-]+)/.exec(text)?.[1] ?? "";
    const again = await open(["-r", id]);
    await again.waitFor(`resumed session ${id}`);
    expect(again.text()).toContain("› run it");
  });
});

describe("review: lembas run enters its prompt as the terminal does", () => {
  test("an action's result is said: /review outside git, /undo with nothing to undo", async () => {
    const review = await runLembas(box, ["run", "/review"], { cwd: box.project });
    expect(review.code).toBe(0);
    expect(`${review.stdout}${review.stderr}`.trim()).not.toBe("");
    model.push(step({ text: "an answer" }));
    await runLembas(box, ["run", "hello"], { cwd: box.project });
    const undo = await runLembas(box, ["run", "-c", "/undo"], { cwd: box.project });
    expect(undo.code).toBe(0);
    expect(`${undo.stdout}${undo.stderr}`).toMatch(/undid|nothing to undo/);
  });
});

describe.skipIf(!HAVE_TMUX)("review: keys while a turn runs", () => {
  test("Ctrl-C once while it works says that a second one quits (it was hidden behind 'working'), and steering says it was taken", async () => {
    model.push(step({ text: "x", fail: "hang" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hang", "Enter");
    await screen.waitFor("working");
    await screen.type("C-c");
    await screen.waitFor("press Ctrl-C again to quit");
    await screen.type("also this", "Enter");
    await screen.waitFor("given to the model at its next step");
    expect(screen.text()).toContain("working");
    await screen.type("Escape");
    await screen.waitFor("interrupted");
  });
});

describe.skipIf(!HAVE_TMUX)("review: a card waiting", () => {
  test("Ctrl-C while an approval waits interrupts the turn and the card goes away (it did nothing: no way to stop but to answer)", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }));
    const screen = await open(["--mode", "manual"]);
    await screen.waitFor("test/test-model");
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    await screen.type("C-c");
    await screen.waitGone("Yes, once");
    await screen.waitFor("interrupted");
    await screen.waitGone(/working \d/);
  });
});

describe.skipIf(!HAVE_TMUX)("review: signals", () => {
  test("a SIGINT from outside while a turn runs quits as SIGTERM does: exit 0, the cursor back, the session named", async () => {
    model.push(step({ text: "x", fail: "hang" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hang", "Enter");
    await screen.waitFor("working");
    process.kill(screen.pid(), "SIGINT");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).toContain("Resume it with");
    const cursor = Bun.spawnSync(["tmux", "-L", screen.socket, "display-message", "-p", "-t", "0", "#{cursor_flag}"]).stdout.toString().trim();
    expect(cursor).toBe("1");
  });
});

describe.skipIf(!HAVE_TMUX)("review: a command typed while a turn runs", () => {
  test("/compact typed while the model works is not given to the model as text (it waits its turn as the command it is)", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 1.5; echo slept" } }] }), step({ text: "finished the work" }));
    const screen = await open(["--mode", "auto"]);
    await screen.waitFor("test/test-model");
    await screen.type("work a while", "Enter");
    await screen.waitFor("Run sleep");
    await screen.type("/compact", "Enter");
    await screen.waitFor("finished the work");
    await Bun.sleep(500);
    const steps = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    const userTexts = steps.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "user").map((m) => JSON.stringify(m.content)));
    expect(userTexts.some((t) => t.includes("/compact"))).toBe(false);
  });
});

describe.skipIf(!HAVE_TMUX)("review: a failed tool call says why", () => {
  test("a command cancelled after some output shows the line saying it was cancelled, not only its first lines", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.3; done" } }] }));
    const screen = await open(["--mode", "auto"]);
    await screen.waitFor("test/test-model");
    await screen.type("tick", "Enter");
    await screen.waitFor("tick 3");
    await screen.type("Escape");
    await screen.waitFor("interrupted");
    const text = screen.text();
    expect(text).toContain("The command was cancelled");
    expect(text).toMatch(/⎿ tick 1\n\s+tick 2\n/);
  });
});

describe.skipIf(!HAVE_TMUX)("review: an answer that opens with indented code", () => {
  test("is drawn as code: its first line keeps its indent like the others", async () => {
    model.push(step({ text: "    $ npm install\n    $ npm test" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("how", "Enter");
    await screen.waitFor("$ npm test");
    const shown = lines(screen.text());
    const install = shown.find((l) => l.includes("$ npm install")) ?? "";
    const test = shown.find((l) => l.includes("$ npm test")) ?? "";
    expect(install.indexOf("$")).toBe(test.indexOf("$"));
  });
});
