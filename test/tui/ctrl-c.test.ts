/**
 * Ctrl-C as Claude Code and Codex have it: a running turn is stopped first (the draft stays and
 * nothing quits); between turns it clears the draft, and on an empty composer twice quits.
 */
import { describe, expect, test } from "bun:test";
import { isStep, step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
const WORKING = / working \d+(s|m)/;
/** An answer streamed slowly enough to be caught in the middle. */
const streaming = () => step({ text: Array.from({ length: 400 }, (_, i) => `w${i} `), chunkDelayMs: 25 });

describe.skipIf(!HAVE_TMUX)("Ctrl-C", () => {
  test("during a streaming answer it stops the turn, keeps the draft, and the composer takes the next prompt", async () => {
    suite.model.push(streaming(), step({ text: "the second answer" }));
    const screen = await suite.open();
    await screen.type("stream for a while", "Enter");
    await screen.waitFor("w5 ");
    await screen.type("half a thought");
    await screen.waitFor("half a thought");
    await screen.type("C-c");
    await screen.waitFor("interrupted");
    await screen.waitGone(WORKING);
    expect(screen.exitCode()).toBeNull();
    expect(screen.text()).toContain("half a thought");
    expect(screen.text()).not.toContain("w399");
    // Between turns it clears the draft; the composer then sends as ever.
    await screen.type("C-c");
    await screen.waitGone("half a thought");
    await screen.type("go on", "Enter");
    await screen.waitFor("the second answer");
    expect(suite.model.requests.filter((r) => isStep(r.body))).toHaveLength(2);
    await screen.waitGone(WORKING);
    await screen.type("C-c");
    await screen.waitFor("press Ctrl-C again to quit");
    await screen.type("C-c");
    expect(await screen.exited()).toBe(0);
  });

  test("the draft it clears between turns is not lost: ↑ brings it back (as Codex has it)", async () => {
    const screen = await suite.open();
    await screen.type("long careful draft");
    await screen.waitFor("long careful draft");
    await screen.type("C-c");
    await screen.waitGone("long careful draft");
    await screen.type("Up");
    await screen.waitFor("long careful draft");
    expect(suite.model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
  });
});
