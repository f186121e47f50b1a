/**
 * What a card shows and takes: a command or feedback pasted into it, long and duplicate labels, a
 * long plan, and the model's own text with terminal control in it.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { digitOf, screenSuite, toolResults } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], env: Record<string, string> = {}) => suite.open(args, { env });

describe.skipIf(!HAVE_TMUX)("cards", () => {
  test("a corrected command pasted with a newline is not run as the two lines glued together", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo one > original.txt" } }] }), step({ text: "done then" }));
    const screen = await open();
    await screen.type("write a file", "Enter");
    await screen.waitFor("Edit the command, then run it once");
    await screen.type(digitOf(screen, "Edit the command, then run it once"));
    await screen.waitFor("│ › echo one > original.txt");
    await screen.type("C-u");
    await screen.waitGone("│ › echo one");
    await screen.paste("touch a.txt\ntouch b.txt");
    await screen.waitFor(/│ › touch a\.txt/);
    await screen.type("Enter");
    await screen.waitFor("done then");
    // Glued, it would have made a file named "a.txttouch".
    expect(readdirSync(box.project).filter((f) => f.includes("txttouch"))).toEqual([]);
  });

  test("feedback pasted with terminal control reaches neither the screen nor the model", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch denied.txt" } }] }), step({ text: "ok, other way" }));
    const screen = await open();
    const seen = await screen.record();
    await screen.type("make a file", "Enter");
    await screen.waitFor("No, and tell the model what to do instead");
    await screen.type(digitOf(screen, "No, and tell the model what to do instead"));
    await screen.waitFor("What should the model do instead?");
    await screen.paste("use \x1b]0;PWNED\x07write\x1b[2J instead");
    await screen.waitFor("│ › use");
    await screen.type("Enter");
    await screen.waitFor("ok, other way");
    expect(seen.bytes()).not.toContain("PWNED");
    expect(toolResults(model)).not.toContain("\x1b");
    expect(toolResults(model)).toContain("They said: use write instead");
  });
});

describe.skipIf(!HAVE_TMUX)("more cards", () => {
  const ask = (questions: object[]) => step({ toolCalls: [{ name: "ask_user", arguments: { questions } }] });

  test("a very long label is cut on the card, and the model is given the whole label", async () => {
    const long = `${"very long option ".repeat(30)}END`;
    model.push(ask([{ header: "Pick", question: "Which one?", options: [{ label: long }, { label: "short" }] }]), step({ text: "got it" }));
    const screen = await open();
    await screen.type("ask me", "Enter");
    await screen.waitFor("Which one?");
    expect(screen.text().split("\n").every((l) => l.length <= 120)).toBe(true);
    await screen.type("1");
    await screen.waitFor("got it");
    expect(toolResults(model)).toContain(long);
  });

  test("duplicate labels in a multiple choice: ticking one ticks only that row", async () => {
    model.push(ask([{ header: "Pick", question: "Which ones?", multiple: true, options: [{ label: "same" }, { label: "same" }, { label: "other" }] }]), step({ text: "got them" }));
    const screen = await open();
    await screen.type("ask me", "Enter");
    await screen.waitFor("Which ones?");
    await screen.type("2");
    await screen.waitFor("[x] same");
    expect(screen.text().match(/\[x\]/g)?.length).toBe(1);
    await screen.type("Enter");
    await screen.waitFor("got them");
    expect(toolResults(model)).toContain("→ same");
  });

  // How fast it scrolls is a figure for a bench, not a test's bound: here, that the pages come at all.
  test("a plan of 5,000 lines opens and scrolls by pages", async () => {
    const steps = Array.from({ length: 5000 }, (_, i) => `- step number ${i + 1}`).join("\n");
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Huge\n\n${steps}\n` } }] }), step({ text: "ok" }));
    const screen = await open(["--mode", "plan"]);
    await screen.type("plan it", "Enter");
    await screen.waitFor(/… lines 1–16 of \d+/, 10_000);
    for (let i = 0; i < 20; i++) await screen.type("NPage");
    await screen.waitFor(/… lines 301–316 of/, 10_000);
    await screen.type("Escape");
    await screen.waitFor("ok");
  });
});

describe.skipIf(!HAVE_TMUX)("the model's text on a card", () => {
  const EVIL = "\x1b]0;PWNED\x07\x1b[2J";
  test("an approval's command with terminal control does not reach the terminal", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `echo hi ${EVIL}there` } }] }), step({ text: "fine" }));
    const screen = await open();
    const seen = await screen.record();
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });

  test("a question's text and labels with terminal control do not reach the terminal", async () => {
    model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { why: `because ${EVIL}`, questions: [{ header: `H${EVIL}`, question: `Which ${EVIL}one?`, options: [{ label: `first ${EVIL}`, description: `about ${EVIL}` }] }] } }] }),
      step({ text: "fine" }),
    );
    const screen = await open();
    const seen = await screen.record();
    await screen.type("ask", "Enter");
    await screen.waitFor("one?");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });

  test("a plan with terminal control does not reach the terminal", async () => {
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Plan ${EVIL}\n\n- step ${EVIL} one\n` } }] }), step({ text: "fine" }));
    const screen = await open(["--mode", "plan"]);
    const seen = await screen.record();
    await screen.type("plan", "Enter");
    await screen.waitFor("Approve, and carry it out in edit mode");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });
});
