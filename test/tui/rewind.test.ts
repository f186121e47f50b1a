/**
 * /rewind (and Esc Esc on an empty composer) goes back to before a picked turn: the files through
 * undo's stamped pre-images, every later turn's too, never over one the person changed since; the
 * conversation cut there. /fork starts a new session through a picked turn; the original stays.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { runLembas } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

/** Every message the last step request carried, as one text. */
function lastRequest(): string {
  const last = suite.model.requests.filter((r) => isStep(r.body)).at(-1);
  return JSON.stringify(last?.body.messages ?? []);
}

/** A turn that reads a file and writes it whole, then answers. */
async function changeTurn(screen: Screen, prompt: string, file: string, content: string, answer: string): Promise<void> {
  suite.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: file } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: file, content } }] }),
    step({ text: answer }),
  );
  await screen.type(prompt, "Enter");
  await screen.waitFor(answer);
}

/** hello, then a turn changing a.txt, then one changing b.txt. */
async function threeTurns(): Promise<Screen> {
  const { box } = suite;
  writeFileSync(join(box.project, "a.txt"), "a before\n");
  writeFileSync(join(box.project, "b.txt"), "b before\n");
  suite.model.push(step({ text: "hello back" }));
  const screen = await suite.open();
  await screen.type("hello there", "Enter");
  await screen.waitFor("hello back");
  await changeTurn(screen, "change file a", "a.txt", "a after\n", "changed a");
  await changeTurn(screen, "change file b", "b.txt", "b after\n", "changed b");
  expect(readFileSync(join(box.project, "b.txt"), "utf8")).toBe("b after\n");
  // The answer shows before the turn has ended: an Esc pressed while it still works interrupts it
  // instead of counting toward Esc Esc (CI saw the picker never open so).
  await screen.waitGone(/ working \d+(s|m)/);
  return screen;
}

/** The next prompt, answered: what its request carries is what the conversation is now. */
async function nextPrompt(screen: Screen): Promise<string> {
  suite.model.push(step({ text: "fresh answer" }));
  await screen.type("C-c");
  await screen.type("after the rewind", "Enter");
  await screen.waitFor("fresh answer");
  return lastRequest();
}

describe.skipIf(!HAVE_TMUX)("/rewind and /fork in the terminal", () => {
  test("/rewind to before two turns puts both files back and the next request carries neither turn", async () => {
    const { box } = suite;
    const screen = await threeTurns();
    await screen.type("/rewind", "Enter");
    await screen.waitFor("Rewind to before which turn?");
    await screen.type("Up", "Enter");
    await screen.waitFor("what goes back?");
    await screen.type("Enter");
    await screen.waitFor("rewound the code and the conversation to before “change file a” (2 turns; 2 files restored");
    // The conversation as it is now is drawn below (what scrolled away stays); the prompt taken back waits in the composer.
    const now = (await screen.waitFor(/the conversation now:[\s\S]*hello back/)).split("the conversation now:").at(-1) ?? "";
    expect(now).not.toContain("changed a");
    expect(now).toContain("change file a");
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a before\n");
    expect(readFileSync(join(box.project, "b.txt"), "utf8")).toBe("b before\n");
    const sent = await nextPrompt(screen);
    expect(sent).toContain("hello there");
    expect(sent).toContain("after the rewind");
    expect(sent).not.toContain("change file a");
    expect(sent).not.toContain("changed b");
  });

  test("Esc Esc opens it; a file the person changed since is left alone and named, the rest goes back", async () => {
    const { box } = suite;
    const screen = await threeTurns();
    writeFileSync(join(box.project, "b.txt"), "mine now\n");
    // Both presses in one write: two tmux spawns on a loaded machine can land further apart than
    // the 2 s that make two presses one gesture (CI saw the picker never open so).
    await screen.write("\x1b\x1b");
    await screen.waitFor("Rewind to before which turn?");
    await screen.type("Up", "Enter");
    await screen.waitFor("what goes back?");
    await screen.type("Enter");
    await screen.waitFor(/b\.txt: it changed after the turn/);
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a before\n");
    expect(readFileSync(join(box.project, "b.txt"), "utf8")).toBe("mine now\n");
    const sent = await nextPrompt(screen);
    expect(sent).not.toContain("change file a");
  });

  test("a file two turns changed and the person set back by hand is left alone by every turn's pass, and named", async () => {
    const { box } = suite;
    writeFileSync(join(box.project, "a.txt"), "a before\n");
    suite.model.push(step({ text: "hello back" }));
    const screen = await suite.open();
    await screen.type("hello there", "Enter");
    await screen.waitFor("hello back");
    await changeTurn(screen, "first change", "a.txt", "a mid\n", "changed once");
    await changeTurn(screen, "second change", "a.txt", "a after\n", "changed twice");
    await screen.waitGone(/ working \d+(s|m)/);
    // The person takes the second turn back by hand: a.txt is as the first turn left it.
    writeFileSync(join(box.project, "a.txt"), "a mid\n");
    await screen.type("/rewind 2 both", "Enter");
    await screen.waitFor(/rewound the code and the conversation to before “first change” \(2 turns; 0 files restored\)\. Left as they are: a\.txt:\s+it changed after the turn/);
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a mid\n");
  });

  test("conversation only leaves the files; code only leaves the conversation", async () => {
    const { box } = suite;
    const screen = await threeTurns();
    await screen.type("/rewind 3 code", "Enter");
    await screen.waitFor("rewound the code to before “change file b” (1 turn; 1 file restored: b.txt)");
    expect(readFileSync(join(box.project, "b.txt"), "utf8")).toBe("b before\n");
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a after\n");
    await screen.type("/rewind 2 conversation", "Enter");
    await screen.waitFor("rewound the conversation to before “change file a” (2 turns); the files are as they were");
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a after\n");
    const sent = await nextPrompt(screen);
    expect(sent).toContain("hello there");
    expect(sent).not.toContain("change file");
    await screen.type("/rewind 9", "Enter");
    await screen.waitFor("/rewind takes a turn's number, 1 to 2: not 9");
  });

  test("/fork through a picked turn: the fork carries the history up to it, the original stays whole", async () => {
    const { box } = suite;
    suite.model.push(step({ text: "first answer" }), step({ text: "second answer" }));
    const screen = await suite.open();
    await screen.type("first prompt", "Enter");
    await screen.waitFor("first answer");
    await screen.type("second prompt", "Enter");
    await screen.waitFor("second answer");
    await screen.type("/fork", "Enter");
    await screen.waitFor("Fork this session through which turn?");
    await screen.type("Down", "Enter");
    const shown = await screen.waitFor(/forked session (ses_[\w-]+) through “first prompt” into (ses_[\w-]+)/);
    const [, original = "", forked = ""] = /forked session (ses_[\w-]+) through “first prompt” into (ses_[\w-]+)/.exec(shown.replace(/\n/g, "")) ?? [];
    expect(forked).not.toBe(original);
    suite.model.push(step({ text: "fork answer" }));
    await screen.type("in the fork", "Enter");
    await screen.waitFor("fork answer");
    const inFork = lastRequest();
    expect(inFork).toContain("first prompt");
    expect(inFork).not.toContain("second prompt");

    suite.model.push(step({ text: "original answer" }));
    const back = await runLembas(box, ["run", "--session", original, "back in the original"], { cwd: box.project });
    expect(back.code).toBe(0);
    const inOriginal = lastRequest();
    expect(inOriginal).toContain("second prompt");
    expect(inOriginal).not.toContain("in the fork");
  });

  test("/rewind in a fork puts back the files of turns made before the fork, as in the original", async () => {
    const { box } = suite;
    writeFileSync(join(box.project, "a.txt"), "a before\n");
    suite.model.push(step({ text: "hello back" }));
    const screen = await suite.open();
    await screen.type("hello there", "Enter");
    await screen.waitFor("hello back");
    await changeTurn(screen, "change file a", "a.txt", "a after\n", "changed a");
    await screen.waitGone(/ working \d+(s|m)/);
    await screen.type("/fork", "Enter");
    await screen.waitFor("Fork this session through which turn?");
    await screen.type("Enter");
    await screen.waitFor("you are in the fork now");
    await screen.type("/rewind 2 both", "Enter");
    await screen.waitFor("rewound the code and the conversation to before “change file a” (1 turn; 1 file restored: a.txt)");
    expect(readFileSync(join(box.project, "a.txt"), "utf8")).toBe("a before\n");
  });

  test("lembas -r ID --fork opens a fork of that session at the terminal; the original stays as it was", async () => {
    const { box } = suite;
    suite.model.push(step({ text: "first answer" }));
    const first = await runLembas(box, ["run", "first prompt"], { cwd: box.project });
    const original = /session (ses_[\w-]+) · continue it/.exec(first.stderr)?.[1];
    if (!original) throw new Error(`no session id in: ${first.stderr}`);
    const screen = await suite.open(["-r", original, "--fork"]);
    const forked = /resumed session (ses_[\w-]+)/.exec((await screen.waitFor(/resumed session ses_[\w-]+/)).replace(/\n/g, ""))?.[1];
    expect(forked).toBeDefined();
    expect(forked).not.toBe(original);
    await screen.waitFor("first answer");
    suite.model.push(step({ text: "fork answer" }));
    await screen.type("in the fork", "Enter");
    await screen.waitFor("fork answer");
    expect(lastRequest()).toContain("first prompt");

    suite.model.push(step({ text: "original answer" }));
    expect((await runLembas(box, ["run", "--session", original, "back in the original"], { cwd: box.project })).code).toBe(0);
    expect(lastRequest()).toContain("first prompt");
    expect(lastRequest()).not.toContain("in the fork");
  });
});
