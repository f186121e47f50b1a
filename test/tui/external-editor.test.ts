/**
 * Ctrl+G: the draft in $VISUAL or $EDITOR, typed in tmux. The editor has the terminal while it
 * runs (it reads a word from it) and what it leaves becomes the draft; an editor unset, missing
 * or failing leaves the draft as it was and says why.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
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

function script(name: string, body: string): string {
  const path = join(box.dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function lastPrompt(): string {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  const user = (last?.body.messages ?? []).filter((m) => m.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

describe.skipIf(!HAVE_TMUX)("Ctrl+G", () => {
  test("opens the draft in $VISUAL (over $EDITOR) with the terminal, and the text it writes is the draft sent", async () => {
    // An editor that asks the terminal for a word and rewrites the file with it: only one given
    // the terminal gets the word typed.
    const editor = script("editor.sh", `printf 'editor here, a word> '\nread word\nprintf 'edited: %s %s\\n' "$(cat "$1")" "$word" > "$1"`);
    model.push(step({ text: "took the edit" }));
    const screen = await suite.open([], { env: { VISUAL: editor, EDITOR: "/nowhere/editor" } });
    await screen.write("fix the");
    await screen.type("C-g");
    await screen.waitFor("editor here, a word>");
    await screen.type("bug", "Enter");
    await screen.waitFor("edited: fix the bug");
    await screen.waitFor("test/test-model");
    await screen.write(" now");
    await screen.type("Enter");
    await screen.waitFor("took the edit");
    expect(lastPrompt()).toStartWith("edited: fix the bug now");
  });

  test("an editor exiting non-zero leaves the draft unchanged and says so", async () => {
    const editor = script("failing.sh", `echo "something else" > "$1"\nexit 3`);
    const screen = await suite.open([], { env: { VISUAL: "", EDITOR: editor } });
    await screen.write("keep this draft");
    await screen.type("C-g");
    await screen.waitFor(`$EDITOR (${editor}) exited with code 3; the draft is unchanged`);
    expect(screen.text()).toContain("keep this draft");
    expect(screen.text()).not.toContain("something else");
  });

  test("Ctrl-C while the editor has the terminal is the editor's: lembas goes on, the draft unchanged (an editor that waits in cooked mode, as `code --wait`)", async () => {
    const editor = script("waiting.sh", `printf 'EDITOR-WAITS\\n'\nsleep 60`);
    model.push(step({ text: "got the draft" }));
    const screen = await suite.open([], { env: { VISUAL: editor } });
    await screen.write("precious draft words");
    await screen.type("C-g");
    await screen.waitFor("EDITOR-WAITS");
    await screen.type("C-c");
    await screen.waitFor("the draft is unchanged");
    expect(screen.exitCode()).toBeNull();
    expect(screen.text()).toContain("precious draft words");
    await screen.type("Enter");
    await screen.waitFor("got the draft");
    expect(lastPrompt()).toStartWith("precious draft words");
  });

  test("an editor not found leaves the draft unchanged and says so", async () => {
    const screen = await suite.open([], { env: { VISUAL: "", EDITOR: "/nowhere/editor --wait" } });
    await screen.write("keep this draft");
    await screen.type("C-g");
    await screen.waitFor("$EDITOR (/nowhere/editor --wait) was not found; the draft is unchanged");
    expect(screen.text()).toContain("keep this draft");
  });

  test("with no $VISUAL nor $EDITOR, it says how to set one and the draft is unchanged", async () => {
    // Empty is unset: tmux's server may hand down the runner's own.
    const screen = await suite.open([], { env: { VISUAL: "", EDITOR: "" } });
    await screen.write("keep this draft");
    await screen.type("C-g");
    await screen.waitFor("set $VISUAL or $EDITOR");
    expect(screen.text()).toContain("keep this draft");
  });

  test("the editor gets the terminal without focus reporting (its reports would be keys to it), and lembas asks for it again after", async () => {
    const editor = script("marked.sh", `printf 'EDITOR-RUNS\\n'\nprintf 'done' > "$1"`);
    const screen = await suite.open([], { env: { VISUAL: editor } });
    const out = await screen.record();
    await screen.write("draft");
    await screen.type("C-g");
    await screen.waitFor("done");
    const bytes = out.bytes();
    const ran = bytes.indexOf("EDITOR-RUNS");
    expect(ran).toBeGreaterThan(0);
    expect(bytes.lastIndexOf("\x1b[?1004l", ran)).toBeGreaterThanOrEqual(0);
    expect(bytes.indexOf("\x1b[?1004h", ran)).toBeGreaterThan(ran);
  });

  test("a large paste comes back from the editor folded to its marker, as long as it is there whole, and is sent whole", async () => {
    const editor = script("prefix.sh", `sed -i '1s/^/edited /' "$1"`);
    const pasted = Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n");
    model.push(step({ text: "got it" }));
    const screen = await suite.open([], { env: { VISUAL: editor } });
    await screen.write("look: ");
    await screen.paste(pasted);
    await screen.waitFor("[paste #1 +300 lines]");
    await screen.type("C-g");
    await screen.waitFor("edited look: [paste #1 +300 lines]");
    expect(screen.text()).not.toContain("row 2");
    await screen.type("Enter");
    await screen.waitFor("got it");
    expect(screen.text()).toContain("[pasted 300 lines]");
    expect(lastPrompt()).toStartWith(`edited look: ${pasted}`);
  });
});
