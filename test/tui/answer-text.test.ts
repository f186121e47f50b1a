/**
 * How the model's answer is drawn in the terminal: its escape sequences act on nothing, a fence
 * reads as the whole answer would, wide emoji never tear the frame, an answer that opens with
 * indented code is code.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { type ScreenOptions, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite();
let model: ScriptedModel;
beforeEach(() => {
  model = suite.model;
});
const open = (args: string[] = [], opts: ScreenOptions = {}) => suite.open(args, opts);

function paneTitle(screen: Screen): string {
  return Bun.spawnSync(["tmux", "-L", screen.socket, "display-message", "-p", "-t", "0", "#{pane_title}"]).stdout.toString().trim();
}

const lines = (text: string) => text.split("\n").map((l) => l.trimEnd());

describe.skipIf(!HAVE_TMUX)("what the model writes cannot drive the terminal", () => {
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

describe.skipIf(!HAVE_TMUX)("an answer cut into parts reads as the whole would", () => {
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

describe.skipIf(!HAVE_TMUX)("wide text never tears the frame", () => {
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

describe.skipIf(!HAVE_TMUX)("an answer that opens with indented code", () => {
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
