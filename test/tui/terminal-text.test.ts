/**
 * Text from a server or a model never acts on the terminal: an answer's escape sequences and bidi
 * overrides are not drawn, a model list's hostile id never reaches the /model picker, and a link
 * whose text is another address shows where it leads.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let model: ScriptedModel;
beforeEach(() => {
  ({ model } = suite);
});

/** What a hostile server sends: retitle the window, clear it, reverse what follows. */
const HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202e";

describe.skipIf(!HAVE_TMUX)("terminal control from a server or the model", () => {
  test("an answer's escape sequences and bidi overrides are not sent to the terminal", async () => {
    model.push(step({ text: `files: ${HOSTILE}gnp.exe and \u2066isolated\u2069 done` }));
    const screen = await suite.open();
    const recording = await screen.record();
    await screen.type("list them", "Enter");
    await screen.waitFor("done");
    expect(screen.text()).toContain("files: gnp.exe and isolated done");
    const bytes = Buffer.from(recording.bytes(), "latin1").toString("utf8");
    expect(bytes).not.toContain("]0;owned");
    expect(bytes).not.toMatch(/[\u202e\u2066\u2069]/);
  });

  test("a model id carrying terminal control is not offered in the /model picker", async () => {
    model.setModels([{ id: "test-model" }, { id: `evil${HOSTILE}` }, { id: "other-model" }]);
    const screen = await suite.open();
    const recording = await screen.record();
    await screen.type("/model", "Enter");
    await screen.waitFor("test/other-model");
    expect(screen.text()).not.toContain("test/evil");
    const bytes = Buffer.from(recording.bytes(), "latin1").toString("utf8");
    expect(bytes).not.toContain("]0;owned");
    expect(bytes).not.toContain("\u202e");
  });

  test("a link whose text is another address shows its real target, also where links are clickable (OSC 8)", async () => {
    model.push(step({ text: "Log in at [https://bank.example/login](https://evil.example/steal), or see [the docs](https://docs.example/)." }));
    // A terminal that shows OSC 8 links, outside tmux as far as lembas can tell.
    const screen = await suite.open([], { env: { TMUX: "", TERM_PROGRAM: "WezTerm" } });
    const recording = await screen.record();
    await screen.type("where do I log in", "Enter");
    await screen.waitFor("or see");
    const bytes = recording.bytes();
    expect(bytes).toContain("\x1b]8;;https://evil.example/steal");
    expect(screen.text()).toContain("https://evil.example/steal");
    expect(screen.text()).not.toContain("bank.example");
    // Words that are no address stay the link's text.
    expect(screen.text()).toContain("the docs");
  });
});
