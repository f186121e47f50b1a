/**
 * A `/word` that is no command and no path is answered at the terminal with a did-you-mean, and
 * not sent to the model; a path (`/path/with/slashes`, or `/tmp` that is there) still goes to it.
 */
import { describe, expect, test } from "bun:test";
import { isStep, step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";
import { unknownCommand } from "../../src/tui/unknown-command.ts";

const suite = screenSuite({ ready: "test/test-model" });
const WORKING = / working \d+(s|m)/;
const NAMES = ["help", "status", "model", "mode", "quit", "exit", "compact", "review", "deploy:prod"];
const nowhere = () => false;

describe("a typed /word", () => {
  test("no command: a did-you-mean for a typo, a prefix, or the pointer to /help when nothing is near", () => {
    expect(unknownCommand("/hel", NAMES, nowhere)).toBe("unknown command /hel — did you mean /help?");
    expect(unknownCommand("/hel me out", NAMES, nowhere)).toBe("unknown command /hel — did you mean /help?");
    expect(unknownCommand("/hepl", NAMES, nowhere)).toBe("unknown command /hepl — did you mean /help?");
    expect(unknownCommand("/stauts", NAMES, nowhere)).toBe("unknown command /stauts — did you mean /status?");
    expect(unknownCommand("/xyzzy", NAMES, nowhere)).toBe("unknown command /xyzzy — /help lists the commands");
  });

  test("a command (its namespaced name too), a path, or no /word at all goes on as it is", () => {
    expect(unknownCommand("/status", NAMES, nowhere)).toBeNull();
    expect(unknownCommand("/deploy:prod now", NAMES, nowhere)).toBeNull();
    expect(unknownCommand("/usr/local/bin is not on PATH", NAMES, nowhere)).toBeNull();
    expect(unknownCommand("/etc/hosts", NAMES, nowhere)).toBeNull();
    expect(unknownCommand("/tmp is full", NAMES, (path) => path === "/tmp")).toBeNull();
    expect(unknownCommand("what does /hel do", NAMES, nowhere)).toBeNull();
  });
});

describe.skipIf(!HAVE_TMUX)("a /word at the terminal", () => {
  test("/hepl and /hel with words after it are answered with /help and never reach the model, the draft kept to fix in place; a /path/with/slashes does", async () => {
    suite.model.push(step({ text: "about that path" }));
    const screen = await suite.open();
    await screen.type("/hepl me fix the build", "Enter");
    await screen.waitFor("unknown command /hepl — did you mean /help?");
    // The draft stayed in the composer (it was emptied): the typo is fixed there.
    await screen.waitFor(/^\s*\/hepl me fix the build\s*$/m);
    await screen.type("C-c");
    await screen.waitGone(/^\s*\/hepl me fix the build\s*$/m);
    await screen.type("/hel me please", "Enter");
    await screen.waitFor(/^\s*\/hel me please\s*$/m);
    await screen.type("C-c");
    await screen.waitFor("unknown command /hel — did you mean /help?");
    await screen.type("/no/such/dir/here is missing", "Enter");
    await screen.waitFor("about that path");
    await screen.waitGone(WORKING);
    const asked = suite.model.requests.filter((r) => isStep(r.body));
    expect(asked).toHaveLength(1);
    const sent = JSON.stringify(asked[0]?.body.messages ?? []);
    expect(sent).toContain("/no/such/dir/here is missing");
    expect(sent).not.toContain("/hepl");
    expect(sent).not.toContain("/hel me");
  });
});
