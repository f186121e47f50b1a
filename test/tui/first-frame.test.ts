/**
 * The terminal's first frame is drawn before the app's heavy modules are loaded (bench/tui.ts's
 * first-frame figure): the real program, with test/support/first-frame-probe.ts preloaded, lists
 * what it had loaded when the status bar first reached the terminal. Keys typed while the rest
 * loads reach the app, in order.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { SESSION_OPEN, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const PROBE = join(import.meta.dir, "../support/first-frame-probe.ts");
const SRC = join(import.meta.dir, "../../src");
const READY = "test/test-model";

const suite = screenSuite();
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

const probed = (gate?: string) => ({
  BUN_OPTIONS: `--preload ${PROBE}`,
  PROBE_READY: READY,
  PROBE_OUT: join(box.dir, "loaded.json"),
  ...(gate ? { PROBE_GATE: gate } : {}),
});

/** Every module loaded when the status bar first reached the terminal, by its full path. */
async function allLoadedAtFirstFrame(): Promise<string[]> {
  const out = join(box.dir, "loaded.json");
  for (let i = 0; i < 400 && !existsSync(out); i++) await Bun.sleep(25);
  return JSON.parse(readFileSync(out, "utf8")) as string[];
}

async function loadedAtFirstFrame(): Promise<string[]> {
  return (await allLoadedAtFirstFrame()).filter((path) => path.startsWith(SRC)).map((path) => path.slice(SRC.length + 1));
}

describe.skipIf(!HAVE_TMUX)("the terminal's first frame", () => {
  test("is drawn before the engine, the model layer, the tools and the app's own modules are loaded", async () => {
    const screen = await suite.open([], { env: probed(), source: true });
    await screen.waitFor(READY);
    const loaded = await loadedAtFirstFrame();
    // The probe saw the frame's own modules: the look into the module cache is a real one.
    expect(loaded).toContain("tui/status-bar.ts");
    const heavy = loaded.filter((path) => /^(engine|model|tools|mcp)\//.test(path) || path === "tui/app.ts" || path === "tui/runtime.ts");
    expect(heavy).toEqual([]);
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
  });

  test("is drawn before config.yaml is checked whole: neither zod nor the config's schema is loaded yet", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nmode: plan\neffort: high\ntheme: light\nconnections:\n  test:\n    base_url: ${model.url}\n`);
    const screen = await suite.open([], { env: probed(), source: true });
    // The status bar of the first frame has config.yaml's mode and effort, read without the schema.
    await screen.waitFor(`${READY} · plan`);
    const loaded = await allLoadedAtFirstFrame();
    expect(loaded.filter((path) => path.includes("/node_modules/zod/") || path.endsWith("/config/schema.ts"))).toEqual([]);
    expect(loaded.some((path) => path.includes("/node_modules/@earendil-works/pi-tui/"))).toBe(true);
    await screen.waitFor(SESSION_OPEN);
    await screen.type("/status", "Enter");
    await screen.waitFor(/effort:? high/);
  });

  test("a config.yaml that is not valid is refused with its sentence right after the first frame, which is erased", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\ntheme: pink\nconnections:\n  test:\n    base_url: ${model.url}\n`);
    const screen = await suite.open([], { env: probed(), source: true });
    expect(await screen.exited()).toBe(2);
    const shown = await screen.waitFor("theme: must be one of dark, light");
    expect(shown).toContain(`lembas: ${join(box.configDir, "config.yaml")}: theme: must be one of dark, light`);
    // The frame was drawn (the probe saw it), then taken off: the sentence stands alone.
    expect(await loadedAtFirstFrame()).toContain("tui/status-bar.ts");
    expect(shown).not.toContain(READY);
    expect(model.requests).toEqual([]);
  });

  test("keys typed while the rest loads are kept, in order: a prompt sent, then a draft", async () => {
    model.push(step({ text: "the early answer" }));
    const gate = join(box.dir, "typed");
    const screen = await suite.open([], { env: probed(gate), source: true });
    await screen.waitFor(READY);
    await screen.write("first prompt");
    await screen.type("Enter");
    await screen.write("then a draft");
    writeFileSync(gate, "");
    await screen.waitFor("the early answer");
    expect(screen.text()).toContain("› first prompt");
    expect(screen.text()).toContain("then a draft");
    expect(model.requests.some((r) => JSON.stringify(r.body.messages).includes("then a draft"))).toBe(false);
  });

  test("Shift+Tab pressed on the first frame changes the mode of the session that opens", async () => {
    const gate = join(box.dir, "typed");
    const screen = await suite.open([], { env: probed(gate), source: true });
    await screen.waitFor(READY);
    await screen.type("BTab");
    writeFileSync(gate, "");
    await screen.waitFor("test/test-model · auto");
    await screen.type("/status", "Enter");
    await screen.waitFor(/mode:? auto|auto mode/);
  });
});
