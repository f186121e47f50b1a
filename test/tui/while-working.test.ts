/**
 * What the terminal does while a turn runs: keys (Ctrl-C, Esc), signals from outside, an approval
 * waiting, a command typed meanwhile, a command cancelled mid-way.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { type ScreenOptions, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite();
let model: ScriptedModel;
beforeEach(() => {
  model = suite.model;
});
const open = (args: string[] = [], opts: ScreenOptions = {}) => suite.open(args, opts);

describe.skipIf(!HAVE_TMUX)("quitting while a turn runs", () => {
  test("SIGTERM during an approval: exit 0, the last frame has neither the card nor 'working', and the session resumes", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }));
    const screen = await open(["--mode", "manual"]);
    await screen.waitFor("test/test-model");
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    process.kill(screen.pid(), "SIGTERM");
    expect(await screen.exited()).toBe(0);
    const text = screen.text();
    expect(text).toContain("Resume it with");
    expect(text).not.toContain("Yes, once");
    expect(text).not.toContain("esc to interrupt");
    expect(text).toContain("interrupted");
    const id = /lembas -r (ses_[\w-]+)/.exec(text)?.[1] ?? "";
    const again = await open(["-r", id]);
    await again.waitFor(`resumed session ${id}`);
    expect(again.text()).toContain("› run it");
  });
});

describe.skipIf(!HAVE_TMUX)("keys while a turn runs", () => {
  test("steering says it was taken, and Ctrl-C then stops the turn (it armed a quit, and a second one quit mid-turn)", async () => {
    model.push(step({ text: "x", fail: "hang" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hang", "Enter");
    await screen.waitFor("working");
    await screen.type("also this", "Enter");
    await screen.waitFor("given to the model at its next step");
    expect(screen.text()).toContain("working");
    await screen.type("C-c");
    await screen.waitFor("interrupted");
    await screen.waitGone(/ working \d+(s|m)/);
    expect(screen.text()).not.toContain("press Ctrl-C again to quit");
    expect(screen.exitCode()).toBeNull();
  });
});

describe.skipIf(!HAVE_TMUX)("a card waiting", () => {
  test("Ctrl-C while an approval waits interrupts the turn and the card goes away (it did nothing: no way to stop but to answer)", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }));
    const screen = await open(["--mode", "manual"]);
    await screen.waitFor("test/test-model");
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    await screen.type("C-c");
    await screen.waitGone("Yes, once");
    await screen.waitFor("interrupted");
    await screen.waitGone(/working \d/);
  });
});

describe.skipIf(!HAVE_TMUX)("signals", () => {
  test("a SIGINT from outside while a turn runs quits as SIGTERM does: exit 0, the cursor back, the session named", async () => {
    model.push(step({ text: "x", fail: "hang" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hang", "Enter");
    await screen.waitFor("working");
    process.kill(screen.pid(), "SIGINT");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).toContain("Resume it with");
    const cursor = Bun.spawnSync(["tmux", "-L", screen.socket, "display-message", "-p", "-t", "0", "#{cursor_flag}"]).stdout.toString().trim();
    expect(cursor).toBe("1");
  });
});

describe.skipIf(!HAVE_TMUX)("a message typed right after another", () => {
  test("first⏎second⏎ typed at once: both reach the model, in order, and no error is shown (the second waited for the first turn, not yet running)", async () => {
    model.push(step({ text: "answered the first" }), step({ text: "answered the second" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    // One send-keys: the two lines come in one read, as a quick typist's (or a paste's without brackets) do.
    Bun.spawnSync(["tmux", "-L", screen.socket, "send-keys", "-t", "0", "first", "Enter", "second", "Enter"]);
    await screen.waitFor("answered the second");
    const said = (r: (typeof model.requests)[number]) => (r.body.messages ?? []).filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    const turns = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0).map(said);
    const last = turns.at(-1) ?? [];
    expect(last.findIndex((t) => t.includes("first"))).toBeGreaterThanOrEqual(0);
    expect(last.findIndex((t) => t.includes("second"))).toBeGreaterThan(last.findIndex((t) => t.includes("first")));
    expect(screen.text()).not.toContain("nothing is running");
    expect(screen.text()).not.toContain("unexpected error");
  });
});

describe.skipIf(!HAVE_TMUX)("a command typed while a turn runs", () => {
  test("/compact typed while the model works is not given to the model as text (it waits its turn as the command it is)", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 1.5; echo slept" } }] }), step({ text: "finished the work" }));
    const screen = await open(["--mode", "auto"]);
    await screen.waitFor("test/test-model");
    await screen.type("work a while", "Enter");
    await screen.waitFor("Run sleep");
    await screen.type("/compact", "Enter");
    await screen.waitFor("finished the work");
    await Bun.sleep(500);
    const steps = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    const userTexts = steps.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "user").map((m) => JSON.stringify(m.content)));
    expect(userTexts.some((t) => t.includes("/compact"))).toBe(false);
  });
});

describe.skipIf(!HAVE_TMUX)("a failed tool call says why", () => {
  test("a command cancelled after some output shows the line saying it was cancelled, not only its first lines", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.3; done" } }] }));
    const screen = await open(["--mode", "auto"]);
    await screen.waitFor("test/test-model");
    await screen.type("tick", "Enter");
    await screen.waitFor("tick 3");
    await screen.type("Escape");
    await screen.waitFor("interrupted");
    const text = screen.text();
    expect(text).toContain("The command was cancelled");
    expect(text).toMatch(/⎿ tick 1\n\s+tick 2\n/);
  });
});
