/**
 * Ctrl+R: a shell's reverse search over the project's earlier prompts. Enter takes one into the
 * composer, Esc leaves, and a search with no match says so and leaves the draft as it was.
 */
import { describe, expect, test } from "bun:test";
import { isStep, step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";
import { PromptSearch } from "../../src/tui/prompt-search.ts";

const suite = screenSuite({ ready: "test/test-model" });
const WORKING = / working \d+(s|m)/;

/** The last user message of the last step the model was asked for. */
function lastAsked(): string {
  const last = suite.model.requests.filter((r) => isStep(r.body)).at(-1);
  const user = last?.body.messages?.findLast((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

describe("the reverse search", () => {
  test("matches newest first, case aside; older and newer step through them and stop at the ends", () => {
    const search = new PromptSearch(["Fix the login test", "write the docs", "fix the build", "add a login page"]);
    expect(search.current()).toBe("Fix the login test");
    search.setQuery("LOGIN");
    expect(search.current()).toBe("Fix the login test");
    search.older();
    expect(search.current()).toBe("add a login page");
    search.older();
    expect(search.current()).toBe("add a login page");
    expect(search.position()).toEqual({ at: 2, of: 2 });
    search.newer();
    search.newer();
    expect(search.current()).toBe("Fix the login test");
    search.setQuery("zzz");
    expect(search.current()).toBeNull();
    expect(search.position().of).toBe(0);
  });
});

describe.skipIf(!HAVE_TMUX)("Ctrl+R in the terminal", () => {
  test("finds an earlier prompt of the project (another session's), Ctrl+R again an older one, Enter takes it, Enter sends it", async () => {
    suite.model.push(step({ text: "one" }), step({ text: "two" }), step({ text: "three" }), step({ text: "resent" }));
    const first = await suite.open();
    for (const [prompt, answer] of [["fix the login test", "one"], ["write the docs", "two"], ["add a login page", "three"]] as const) {
      await first.type(prompt, "Enter");
      await first.waitFor(answer);
      await first.waitGone(WORKING);
    }
    await first.type("C-d");
    await first.exited();
    const screen = await suite.open();
    await screen.type("C-r");
    await screen.waitFor("search earlier prompts:");
    await screen.type("login");
    await screen.waitFor("› add a login page");
    await screen.waitFor("1 of 2");
    await screen.type("C-r");
    await screen.waitFor("› fix the login test");
    await screen.type("Enter");
    await screen.waitGone("search earlier prompts:");
    await screen.type("Enter");
    await screen.waitFor("resent");
    expect(lastAsked()).toContain("fix the login test");
  });

  test("a search with no match says so; Enter or Esc leaves it and the draft is as it was", async () => {
    suite.model.push(step({ text: "done" }));
    const screen = await suite.open();
    await screen.type("an earlier prompt", "Enter");
    await screen.waitFor("done");
    await screen.waitGone(WORKING);
    await screen.type("keep this draft");
    await screen.type("C-r");
    await screen.waitFor("search earlier prompts:");
    await screen.type("zzz");
    await screen.waitFor("no earlier prompt holds “zzz”");
    await screen.type("Enter");
    await screen.waitGone("search earlier prompts:");
    expect(screen.text()).toContain("keep this draft");
    await screen.type("C-r");
    await screen.waitFor("› an earlier prompt");
    await screen.type("Escape");
    await screen.waitGone("search earlier prompts:");
    expect(screen.text()).toContain("keep this draft");
    expect(suite.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
  });

  test("finds a `!` command run in this session (it is in ↑'s history, and was not found)", async () => {
    const screen = await suite.open();
    await screen.type("!echo hi-there", "Enter");
    await screen.waitFor("hi-there");
    await screen.type("C-r");
    await screen.waitFor("search earlier prompts:");
    await screen.type("echo");
    await screen.waitFor("› !echo hi-there");
    await screen.type("Enter");
    await screen.waitGone("search earlier prompts:");
    await screen.waitFor(/^\s*!echo hi-there\s*$/m);
  });
});
