/**
 * Vim mode in the composer, typed in tmux: the mode in the status bar, dd, cw and u on a draft,
 * Enter in normal mode sending, Esc in insert mode going to normal mode and in normal mode
 * interrupting a turn; /vim turning it on and keeping it in config.yaml.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

function lastPrompt(): string {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  const user = (last?.body.messages ?? []).filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/** The composer's lines: between its two borders, under the transcript. */
function composer(screen: string): string[] {
  const lines = screen.split("\n");
  const borders = lines.flatMap((line, i) => (/^─{10,}/.test(line) ? [i] : []));
  const [top, bottom] = borders.slice(-2);
  if (top === undefined || bottom === undefined) throw new Error(`no composer on the screen:\n${screen}`);
  return lines.slice(top + 1, bottom).map((line) => line.trimEnd());
}

describe.skipIf(!HAVE_TMUX)("vim mode", () => {
  test("with tui.vim: dd deletes a line, cw changes a word, u takes each back, and Enter in normal mode sends the draft", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "tui:\n  vim: true\n");
    model.push(step({ text: "got the draft" }));
    const screen = await suite.open();
    await screen.waitFor("-- INSERT --");
    await screen.write("first line");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    await screen.write("o");
    await screen.waitFor("-- INSERT --");
    await screen.write("second line here");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    expect(composer(screen.text())).toEqual(["first line", "second line here"]);

    await screen.write("dd");
    await screen.waitGone("second line here");
    expect(composer(screen.text())).toEqual(["first line"]);
    await screen.write("u");
    await screen.waitFor("second line here");
    expect(composer(screen.text())).toEqual(["first line", "second line here"]);

    // The cursor is back on the line dd took: 0, w to "line", then cw.
    await screen.write("0wcw");
    await screen.waitFor("-- INSERT --");
    await screen.write("word");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    expect(composer(screen.text())).toEqual(["first line", "second word here"]);
    // The change and what was typed in it are one step.
    await screen.write("u");
    await screen.waitFor("second line here");
    expect(composer(screen.text())).toEqual(["first line", "second line here"]);

    await screen.type("Enter");
    await screen.waitFor("got the draft");
    expect(lastPrompt()).toStartWith("first line\nsecond line here\n");
    // The next prompt is typed in insert mode.
    await screen.waitFor("-- INSERT --");
  });

  test(". repeats the last change where the cursor is: a cw with what was typed in it, then a dw; u takes a repeat back whole", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "tui:\n  vim: true\n");
    model.push(step({ text: "sent as changed" }));
    const screen = await suite.open();
    await screen.waitFor("-- INSERT --");
    await screen.write("foo bar baz qux end");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    await screen.write("0cwX");
    await screen.type("Escape");
    await screen.waitFor("X bar baz qux end");
    await screen.write("w.");
    await screen.waitFor("X X baz qux end");
    await screen.write("w.");
    await screen.waitFor("X X X qux end");
    await screen.write("u");
    await screen.waitFor("X X baz qux end");
    await screen.write("0wwdw");
    await screen.waitFor("X X qux end");
    await screen.write(".");
    await screen.waitFor(/X X end\s*$/m);
    expect(composer(screen.text())).toEqual(["X X end"]);
    await screen.type("Enter");
    await screen.waitFor("sent as changed");
    expect(lastPrompt()).toStartWith("X X end\n");
  });

  test("/vim turns it on and keeps it in config.yaml; Esc in insert mode goes to normal mode, in normal mode it interrupts the turn", async () => {
    model.push(step({ text: "x", fail: "hang" }));
    const screen = await suite.open();
    expect(screen.text()).not.toContain("-- INSERT --");
    await screen.type("/vim", "Enter");
    await screen.waitFor("vim mode on");
    await screen.waitFor("-- INSERT --");
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toMatch(/tui:\n\s+vim: true/);

    // Esc and the next key read in one chunk (as Alt+x would be) are Esc, then x.
    await screen.write("abc");
    await screen.waitFor("abc");
    Bun.spawnSync(["tmux", "-L", screen.socket, "send-keys", "-t", "0", "Escape", "x"]);
    await screen.waitFor("-- NORMAL --");
    await screen.waitGone("abc");
    expect(composer(screen.text())).toEqual(["ab"]);
    await screen.write("ddi");
    await screen.waitFor("-- INSERT --");
    await screen.waitFor(/─{10,}\n\s*\n─{10,}/);

    await screen.type("hang", "Enter");
    await screen.waitFor(/ working \d+s/);
    // In insert mode Esc goes to normal mode first, and the hint says what each Esc does.
    expect(screen.text()).toContain("esc to normal mode, esc esc to interrupt");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    // The turn still runs: the first Esc only left insert mode.
    expect(screen.text()).toMatch(/ working \d+s/);
    expect(screen.text()).not.toContain("interrupted");
    await screen.type("Escape");
    await screen.waitFor("interrupted");
    await screen.waitGone(/ working \d+(s|m)/);

    await screen.type("i/vim", "Enter");
    await screen.waitFor("vim mode off");
    await screen.waitGone("-- NORMAL --");
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toMatch(/tui:\n\s+vim: false/);
  });

  test("a folded paste's marker is one character: x, dw and cw take it whole, never a part, and the model gets the paste", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "tui:\n  vim: true\n");
    model.push(step({ text: "got the paste" }));
    const screen = await suite.open();
    await screen.waitFor("-- INSERT --");
    await screen.write("see ");
    await screen.waitFor("see");
    await screen.paste(Array.from({ length: 300 }, (_, i) => `pasted line ${i + 1}`).join("\n"));
    await screen.waitFor("[paste #1 +300 lines]");
    await screen.write(" end");
    await screen.waitFor("lines] end");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");

    // 0 then w: the cursor on the marker; x takes all of it.
    await screen.write("0wx");
    await screen.waitGone("+300 lines");
    expect(composer(screen.text())).toEqual(["see  end"]);
    await screen.write("u");
    await screen.waitFor("[paste #1 +300 lines] end");

    await screen.write("0wdw");
    await screen.waitGone("+300 lines");
    expect(composer(screen.text())).toEqual(["see end"]);
    await screen.write("u");
    await screen.waitFor("[paste #1 +300 lines] end");

    await screen.write("0wcw");
    await screen.waitFor("-- INSERT --");
    await screen.write("X");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    expect(composer(screen.text())).toEqual(["see X end"]);
    await screen.write("u");
    await screen.waitFor("[paste #1 +300 lines] end");

    // $ then h from the line's end: the cursor steps onto the marker whole, and D takes it with what follows.
    await screen.write("$hhhhD");
    await screen.waitGone("+300 lines");
    expect(composer(screen.text())).toEqual(["see"]);
    await screen.write("u");
    await screen.waitFor("[paste #1 +300 lines] end");

    await screen.type("Enter");
    await screen.waitFor("got the paste");
    expect(lastPrompt()).toContain("see pasted line 1\n");
    expect(lastPrompt()).toContain("pasted line 300 end");
  });

  test("one u takes Ctrl+G's whole edit back, a folded paste in it too, to the draft as it was", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "tui:\n  vim: true\n");
    const editor = join(box.dir, "prefix.sh");
    writeFileSync(editor, `#!/bin/sh\nsed -i '1s/^/edited /' "$1"\n`);
    chmodSync(editor, 0o755);
    const screen = await suite.open([], { env: { VISUAL: editor } });
    await screen.waitFor("-- INSERT --");
    await screen.write("look: ");
    await screen.paste(Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n"));
    await screen.waitFor("[paste #1 +300 lines]");
    await screen.type("Escape");
    await screen.waitFor("-- NORMAL --");
    await screen.type("C-g");
    await screen.waitFor("edited look: [paste #1 +300 lines]");
    await screen.write("u");
    await screen.waitGone("edited look:");
    expect(composer(screen.text())).toEqual(["look: [paste #1 +300 lines]"]);
  });

  test("a tui.vim that is not true or false is refused with the key named", async () => {
    appendFileSync(join(box.configDir, "config.yaml"), "tui:\n  vim: sometimes\n");
    const screen = await suite.open([], { ready: "tui.vim" });
    expect(screen.text()).toContain("must be true or false");
  });
});
