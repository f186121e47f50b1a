/**
 * A calm transcript: a flaky server's retries are one line that ends with the outcome, the
 * person's own mode changes add no line (the model's, a plan approval's are said once), a large
 * paste stays folded while the model gets it whole, and /help fits a 40-row screen.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { isStep, step } from "../support/engine.ts";
import { lastUserText, type ScriptedModel } from "../support/model.ts";
import { digitOf, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let model: ScriptedModel;
beforeEach(() => {
  model = suite.model;
});
/** Retries waited 50 ms, not seconds. */
const FAST_RETRIES = { LEMBAS_TEST_RETRY_BASE_MS: "50" };
const lines = (text: string, what: RegExp) => text.split("\n").filter((line) => what.test(line));

describe.skipIf(!HAVE_TMUX)("retries", () => {
  test("a server answering 500 three times, then OK: one retry line, ended with the outcome", async () => {
    model.push(step({ text: "finally here", fail: { status: 500 }, failTimes: 3 }));
    const screen = await suite.open([], { env: FAST_RETRIES });
    await screen.type("hello", "Enter");
    await screen.waitFor("finally here");
    await screen.waitFor("it answered after 3 retries");
    await screen.waitGone(/ working \d+(s|m)/);
    const text = screen.text();
    expect(lines(text, /retr|trying again/)).toHaveLength(1);
    expect(lines(text, /scripted failure|500/)).toHaveLength(1);
  });

  test("a server that never answers: the one line ends as the turn's error, said once (it was said by the line and again below it)", async () => {
    model.push(step({ text: "never", fail: { status: 500 }, failTimes: 99 }));
    const screen = await suite.open([], { env: { ...FAST_RETRIES } });
    await screen.type("hello", "Enter");
    await screen.waitFor("(tried 9 times)", 60_000);
    await screen.waitGone(/ working \d+(s|m)/, 60_000);
    const text = screen.text();
    expect(lines(text, /trying again|gave up|tried 9 times/)).toHaveLength(1);
    expect(lines(text, /scripted failure|500/)).toHaveLength(1);
  });
});

describe.skipIf(!HAVE_TMUX)("mode changes", () => {
  test("Shift+Tab and /mode change the status bar and add no transcript line", async () => {
    const screen = await suite.open();
    // The status bar says why the session is not shared once it is open: before, Shift+Tab has no session to change.
    await screen.waitFor("not shared");
    await screen.type("BTab");
    await screen.waitFor("test/test-model · auto");
    await screen.type("/mode manual", "Enter");
    await screen.waitFor("test/test-model · manual");
    expect(screen.text()).not.toContain("mode:");
  });

  test("a plan approval's mode change is said once (the approval's result said it, and a mode line after it again)", async () => {
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Tidy\n\n1. tidy\n" } }] }), step({ text: "carrying it out" }));
    const screen = await suite.open(["--mode", "plan"]);
    await screen.type("plan it", "Enter");
    await screen.waitFor("┌ Plan · .agent/plans/");
    await screen.type(digitOf(screen, "Approve, and carry it out in edit mode"));
    await screen.waitFor("carrying it out");
    await screen.waitGone(/ working \d+(s|m)/);
    expect(lines(screen.text(), /mode: edit|in edit mode/)).toHaveLength(1);
  });
});

describe.skipIf(!HAVE_TMUX)("a large paste", () => {
  test("300 pasted lines stay folded in the transcript, and the request has them whole", async () => {
    const pasted = Array.from({ length: 300 }, (_, i) => `pasted row ${i + 1}`).join("\n");
    model.push(step({ text: "read it all" }));
    const screen = await suite.open();
    await screen.write("look at this: ");
    await screen.paste(pasted);
    await screen.waitFor("[paste #1 +300 lines]");
    await screen.type("Enter");
    await screen.waitFor("read it all");
    const text = screen.text();
    expect(text).toContain("› look at this: [pasted 300 lines]");
    expect(text).toContain("│ pasted row 1\n");
    expect(text).not.toContain("pasted row 150");
    const sent = model.requests.filter((r) => isStep(r.body)).at(-1);
    expect(lastUserText(sent?.body ?? { messages: [] })).toStartWith(`look at this: ${pasted}`);
  });

  test("a paste that ends in a line break (seq 1 300) is 300 lines, not 301, in the composer and the transcript; the text sent is the same", async () => {
    const pasted = `${Array.from({ length: 300 }, (_, i) => `row ${i + 1}`).join("\n")}\n`;
    model.push(step({ text: "counted" }));
    const screen = await suite.open();
    await screen.write("count: ");
    await screen.paste(pasted);
    await screen.waitFor("[paste #1 +300 lines]");
    await screen.write("and this");
    await screen.type("Enter");
    await screen.waitFor("counted");
    expect(screen.text()).toContain("› count: [pasted 300 lines]");
    expect(screen.text()).not.toContain("301");
    const sent = model.requests.filter((r) => isStep(r.body)).at(-1);
    expect(lastUserText(sent?.body ?? { messages: [] })).toStartWith(`count: ${pasted}and this`);
  });
});

describe.skipIf(!HAVE_TMUX)("/help", () => {
  test("a compact panel: keys and every command fit a 120×40 screen with the composer, Esc closes it", async () => {
    const screen = await suite.open([], { rows: 40, columns: 120 });
    await screen.type("/help", "Enter");
    await screen.waitFor("Esc closes");
    const text = screen.text();
    for (const shown of ["Keys", "Commands", "/new", "/quit", "/compact", "/continue", "test/test-model · edit"]) expect(text).toContain(shown);
    await screen.type("Escape");
    await screen.waitGone("Esc closes");
    await screen.type("/help mode", "Enter");
    await screen.waitFor("/mode [mode] — The mode: plan, manual, edit or auto");
  });
});

describe.skipIf(!HAVE_TMUX)("counts", () => {
  test("a command's output one line past what is shown says \"1 more line\", not \"1 more lines\"", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "seq 1 9" } }] }), step({ text: "counted" }));
    const screen = await suite.open(["--mode", "auto"]);
    await screen.type("count", "Enter");
    await screen.waitFor("counted");
    expect(screen.text()).toContain("… 1 more line (9 in all)");
  });
});
