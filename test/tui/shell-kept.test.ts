/**
 * `!` commands are the person's own part of the session: each run is kept with it and drawn where
 * it came when the session is resumed, the last one (after the last prompt) too.
 */
import { describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

describe.skipIf(!HAVE_TMUX)("! runs kept with the session", () => {
  test("a resumed session shows each ! run where it came, the one after the last prompt too", async () => {
    suite.model.push(step({ text: "first answer" }), step({ text: "second answer" }));
    const screen = await suite.open();
    await screen.type("hello", "Enter");
    await screen.waitFor("first answer");
    await screen.type("!echo KEEP-ONE", "Enter");
    await screen.waitFor(/⎿ KEEP-ONE/);
    await screen.type("what did it print", "Enter");
    await screen.waitFor("second answer");
    await screen.type("!echo KEEP-TWO", "Enter");
    await screen.waitFor(/⎿ KEEP-TWO/);
    await screen.type("/quit", "Enter");
    expect(await screen.exited()).toBe(0);
    const again = await suite.open(["-c"]);
    await again.waitFor(/⎿ KEEP-TWO/);
    const text = again.text();
    const at = (s: string) => text.indexOf(s);
    expect(at("first answer")).toBeGreaterThan(0);
    expect(at("⎿ KEEP-ONE")).toBeGreaterThan(at("first answer"));
    expect(at("what did it print")).toBeGreaterThan(at("⎿ KEEP-ONE"));
    expect(at("⎿ KEEP-TWO")).toBeGreaterThan(at("second answer"));
  });
});
