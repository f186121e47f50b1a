/**
 * /export, /settings and /model given an argument they cannot use as it is.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
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

describe.skipIf(!HAVE_TMUX)("commands", () => {
  test("/export to an existing directory writes the file inside it, not beside it", async () => {
    model.push(step({ text: "an answer" }));
    const screen = await open();
    await screen.type("hello", "Enter");
    await screen.waitFor("an answer");
    mkdirSync(join(box.project, "out"));
    await screen.type("/export out", "Enter");
    await screen.waitFor(/exported 1 turns? to/);
    expect(readdirSync(join(box.project, "out")).filter((f) => f.endsWith(".md"))).toHaveLength(1);
    expect(existsSync(join(box.project, "out-1"))).toBe(false);
  });

  test("/settings keeps the comments of config.yaml", async () => {
    const file = join(box.configDir, "config.yaml");
    const before = readFileSync(file, "utf8");
    writeFileSync(file, `# my settings, keep me\n${before}`);
    const screen = await open();
    await screen.type("/settings effort high", "Enter");
    await screen.waitFor("effort = high");
    expect(readFileSync(file, "utf8")).toContain("# my settings, keep me");
  });

  test("/settings with a bad value: one line, config.yaml unchanged", async () => {
    const file = join(box.configDir, "config.yaml");
    const before = readFileSync(file, "utf8");
    const screen = await open();
    await screen.type("/settings remote.approval_timeout [1, {a: 2}]", "Enter");
    await screen.waitFor("remote.approval_timeout");
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);
    await screen.type("/settings connections nope", "Enter");
    await screen.waitFor(/connections/);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(readdirSync(box.configDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe.skipIf(!HAVE_TMUX)("a model that is not there", () => {
  test("/model with a ref that is not there is one line and the model stays", async () => {
    const screen = await open();
    await screen.type("/model nowhere/ghost", "Enter");
    await Bun.sleep(500);
    expect(screen.text()).toContain("test/test-model · edit");
    expect(screen.text()).toMatch(/ghost|nowhere/);
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
