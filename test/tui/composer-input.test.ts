/**
 * What the composer takes and offers: @ mentions, commands named like the terminal's, a failing
 * clipboard tool, an enormous paste, a dragged path, a multi-line prompt brought back.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
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
const open = (args: string[] = [], env: Record<string, string> = {}) => suite.open(args, { env });

function sentText(): string {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  return JSON.stringify(last?.body.messages ?? []);
}

describe.skipIf(!HAVE_TMUX)("the composer", () => {
  test("@ never offers nor attaches .env, nor a file outside the project by @../", async () => {
    writeFileSync(join(box.project, ".env"), "API_KEY=hunter2-secret\n");
    writeFileSync(join(box.project, "envelope.txt"), "a letter\n");
    writeFileSync(join(box.dir, "outside.txt"), "outside-secret-word\n");
    model.push(step({ text: "read none" }));
    const screen = await open();
    await screen.write("@env");
    await screen.waitFor("envelope.txt");
    expect(screen.text()).not.toMatch(/→?\s+\.env\b/);
    await screen.type("C-c");
    await screen.write("look at @.env and @../outside.txt ");
    await Bun.sleep(300);
    await screen.type("Enter");
    await screen.waitFor("read none");
    expect(sentText()).not.toContain("hunter2-secret");
    expect(sentText()).not.toContain("outside-secret-word");
  });

  test("a custom command named like a terminal command is not offered: /model is listed once, the terminal's", async () => {
    mkdirSync(join(box.project, ".agent", "commands"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "commands", "model.md"), "---\ndescription: A custom model command\n---\nDo the model thing.\n");
    const screen = await open();
    await screen.write("/mode");
    await screen.waitFor("The session's model");
    expect(screen.text()).not.toContain("A custom model command");
    expect(screen.text().split("\n").filter((l) => /^\s*(→\s*)?\/model\s/.test(l))).toHaveLength(1);
  });

  test("a clipboard tool that exits 1 with terminal control in its error: one plain line", async () => {
    const bin = join(box.dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "wl-paste"), `#!/bin/sh\nprintf '\\033]0;PWNED\\007\\033[2Jbroken pipe\\nsecond line\\n' >&2\nexit 1\n`);
    chmodSync(join(bin, "wl-paste"), 0o755);
    const screen = await open([], { PATH: `${bin}:/usr/bin:/bin`, WAYLAND_DISPLAY: "wayland-test", DISPLAY: "" });
    const seen = await screen.record();
    await screen.type("C-v");
    await screen.waitFor("wl-paste could not read the clipboard");
    expect(screen.text()).toContain("broken pipe");
    expect(screen.text()).not.toContain("second line");
    expect(seen.bytes()).not.toContain("PWNED");
  });

  test("a 5 MB paste is folded to a marker and the composer still types", async () => {
    const screen = await open();
    const line = "x".repeat(99);
    const text = Array.from({ length: 50_000 }, () => line).join("\n");
    const file = join(box.dir, "big.txt");
    writeFileSync(file, text);
    Bun.spawnSync(["tmux", "-L", screen.socket, "load-buffer", file]);
    Bun.spawnSync(["tmux", "-L", screen.socket, "paste-buffer", "-p", "-t", "0"]);
    await screen.waitFor(/\[paste #1 \+50000 lines\]/, 20_000);
    await screen.write(" and more");
    // No timed assertion (the machines are shared): the waits above bound a paste that would hang.
    await screen.waitFor("and more", 10_000);
  });

  test("a dragged path to a file that does not exist, or to a non-image, stays text", async () => {
    writeFileSync(join(box.project, "notes.txt"), "hello\n");
    const screen = await open();
    await screen.paste("/no/such/picture.png");
    await screen.waitFor("/no/such/picture.png");
    await screen.type("C-c");
    await screen.paste(join(box.project, "notes.txt"));
    await screen.waitFor("notes.txt");
    expect(screen.text()).not.toContain("[image #");
  });
});

describe.skipIf(!HAVE_TMUX)("prompt history", () => {
  test("Up brings back a multi-line prompt whole", async () => {
    model.push(step({ text: "one" }), step({ text: "two" }));
    const screen = await open();
    await screen.write("line one");
    await screen.type("M-Enter");
    await screen.write("line two");
    await screen.type("Enter");
    await screen.waitFor("one");
    await screen.type("Up");
    await screen.waitFor(/line one\n.*line two/);
  });
});
