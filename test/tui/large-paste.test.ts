/**
 * A large paste into the prompt, in the real program in tmux: tmux writes it to the terminal in the
 * chunks it takes, and the prompt holds it whole (its fold's line count, and the bytes the model
 * gets once it is sent); the keys typed after it, in the same chunk or later, follow it; a paste
 * whose end never comes does not keep the keys typed after it.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

const START = "\x1b[200~";
const END = "\x1b[201~";

/** tmux on the screen's own server. */
function tmux(screen: Screen, ...args: string[]): void {
  const res = Bun.spawnSync(["tmux", "-L", screen.socket, ...args], { stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`tmux ${args[0]}: ${res.stderr.toString().trim()}`);
}

/** `bytes` written to the terminal as they are, in one write of tmux's (`paste-buffer` without -p: no markers added). */
function sendRaw(screen: Screen, bytes: string): void {
  const file = join(box.dir, `raw-${Date.now()}-${Math.random()}`);
  writeFileSync(file, bytes);
  tmux(screen, "load-buffer", "-b", "raw", file);
  tmux(screen, "paste-buffer", "-r", "-d", "-b", "raw", "-t", "0");
}

/** The prompt the model was sent last (the user message without lembas's note on the mode), once it was asked for a step. */
async function sentPrompt(): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const request = model.requests.findLast((r) => isStep(r.body));
    const user = request?.body.messages?.findLast((m) => m.role === "user");
    if (user) return contentText(user.content).replace(/\n\n\[lembas\] [^\n]*$/, "");
    if (Date.now() > until) throw new Error("the model was never asked for a step");
    await Bun.sleep(25);
  }
}

const logLines = (n: number) => Array.from({ length: n }, (_, i) => `2026-12-07T02:00:00Z INFO worker-${i % 7} handled request #${i} in ${i % 97} ms: ok`).join("\n");

describe.skipIf(!HAVE_TMUX)("a large paste into the prompt", () => {
  test("a 3 MB log pasted by tmux is folded with its line count and sent whole, with the keys typed after it", async () => {
    const text = logLines(45_000);
    expect(text.length).toBeGreaterThan(3_000_000);
    model.push(step({ text: "read the whole log" }));
    const screen = await suite.open();
    const file = join(box.dir, "log.txt");
    writeFileSync(file, text);
    tmux(screen, "load-buffer", "-b", "log", file);
    // As a terminal pastes: ESC[200~ … ESC[201~, line breaks as CR, written in the chunks it takes.
    tmux(screen, "paste-buffer", "-p", "-b", "log", "-t", "0");
    await screen.waitFor("[paste #1 +45000 lines]", 60_000);
    await screen.type(" what failed?");
    await screen.waitFor("[paste #1 +45000 lines] what failed?");
    await screen.type("Enter");
    await screen.waitFor("read the whole log", 60_000);
    const sent = await sentPrompt();
    expect(sent.length).toBe(text.length + " what failed?".length);
    expect(sent === `${text} what failed?`).toBe(true);
  });

  test("an end marker cut between two writes, keys after it in the same write, and a start marker in the pasted text", async () => {
    const text = logLines(30);
    model.push(step({ text: "got the pieces" }));
    const screen = await suite.open();
    const cut = text.length - 200;
    sendRaw(screen, `${START}${text.slice(0, cut)}`);
    sendRaw(screen, `${text.slice(cut)}\n${START}nested${END.slice(0, 3)}`);
    // The rest of the end marker, then keys in the same write.
    sendRaw(screen, `${END.slice(3)} and then typed`);
    await screen.waitFor("[paste #1 +31 lines] and then typed");
    await screen.type("Enter");
    await screen.waitFor("got the pieces");
    // pi-tui keeps a pasted text's printable characters: the inner marker's ESC is left out.
    expect(await sentPrompt()).toBe(`${text}\n[200~nested and then typed`);
  });

  test("a paste whose end never comes is taken as pasted once nothing more comes, and keys are keys again", async () => {
    model.push(step({ text: "heard you" }));
    const screen = await suite.open();
    sendRaw(screen, `${START}half a paste`);
    // Before, pi-tui waited for the end marker for ever: every key typed after it went into the paste.
    await screen.waitFor("half a paste");
    // Its end marker coming late is no key: nothing of it is typed.
    sendRaw(screen, END);
    await screen.type(" then typed", "Enter");
    await screen.waitFor("heard you");
    expect(await sentPrompt()).toBe("half a paste then typed");
  });
});
