/**
 * Notifications: when a turn ends or a card waits and the terminal is not in front (focus
 * reporting, CSI ?1004), the bell and the terminal's own desktop notification (OSC 9 or 777);
 * the bell alone where focus is never reported; `tui.notify` in config.yaml.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { sleep } from "../support/recorder.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";
import { desktopEscape, notificationBytes } from "../../src/tui/notify.ts";

const suite = screenSuite({ ready: "test/test-model" });
const FOCUS_OUT = "\x1b[O";
const FOCUS_IN = "\x1b[I";
const OSC9_TURN = "\x1b]9;lembas is waiting for your input\x07";

/** A bell of its own: not the one that ends an OSC (the window's title, a notification). */
function bells(bytes: string): number {
  return (bytes.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").match(/\x07/g) ?? []).length;
}

function setNotify(value: string): void {
  appendFileSync(join(suite.box.configDir, "config.yaml"), `tui:\n  notify: ${value}\n`);
}

/** Sends a prompt and waits for its turn to end. */
async function turn(screen: Screen, prompt: string): Promise<void> {
  const before = suite.model.requests.length;
  await screen.type(prompt, "Enter");
  await screen.waitFor(`› ${prompt}`);
  await suite.model.waitForRequests(before + 1);
  await screen.waitGone(/ working \d+(s|m)/);
}

describe.skipIf(!HAVE_TMUX)("notifications", () => {
  test("a turn that ends with the terminal out of focus: OSC 9 and the bell where the terminal takes OSC 9; nothing once focus is back", async () => {
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm" } });
    let out = await screen.record();
    await screen.write(FOCUS_OUT);
    await turn(screen, "first");
    await screen.waitFor("ok");
    const bytes = out.bytes();
    // The test's terminal is a tmux pane (TMUX is set): the OSC goes through tmux's passthrough.
    expect(bytes).toContain(`\x1bPtmux;${OSC9_TURN.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`);
    expect(bells(bytes)).toBe(1);
    // The focus report is read, never typed into the composer.
    expect(screen.text()).not.toContain("[O");
    await screen.write(FOCUS_IN);
    out = await screen.record();
    await turn(screen, "second");
    expect(out.bytes()).not.toContain("\x1b]9;");
    expect(bells(out.bytes())).toBe(0);
  });

  test("outside tmux the OSC is written as it is, not wrapped for tmux's passthrough", async () => {
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm", TMUX: "" } });
    const out = await screen.record();
    await screen.write(FOCUS_OUT);
    await turn(screen, "first");
    expect(out.bytes()).toContain(OSC9_TURN);
    expect(out.bytes()).not.toContain("\x1bPtmux;");
  });

  test("an approval waiting while out of focus is notified with what it asks", async () => {
    suite.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > f.txt" } }] }));
    const screen = await suite.open(["--mode", "manual"], { env: { TERM_PROGRAM: "iTerm.app" } });
    const out = await screen.record();
    await screen.write(FOCUS_OUT);
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    expect(out.bytes()).toContain("\x1b]9;lembas needs your permission: Run echo hi > f.txt\x07");
  });

  test("the Notification hook hears the same moments: the approval waiting and the turn's end", async () => {
    const log = join(suite.box.dir, "notified.log");
    const script = join(suite.box.dir, "notified.sh");
    writeFileSync(script, `#!/bin/sh\ncat >> ${log}\necho >> ${log}\n`);
    chmodSync(script, 0o755);
    appendFileSync(join(suite.box.configDir, "config.yaml"), `hooks:\n  Notification:\n    - hooks:\n        - type: command\n          command: ${script}\n`);
    suite.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ text: "done" }));
    const screen = await suite.open(["--mode", "manual"], { env: { TERM_PROGRAM: "WezTerm" } });
    const out = await screen.record();
    await screen.write(FOCUS_OUT);
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    await screen.type("Enter");
    await screen.waitFor("done");
    await screen.waitGone(/ working \d+(s|m)/);
    expect(out.bytes()).toContain("\x1b]9;lembas needs your permission: Run echo hi\x07");
    expect(out.bytes()).toContain(OSC9_TURN);
    const until = Date.now() + 10_000;
    while (!(existsSync(log) && readFileSync(log, "utf8").includes("idle_prompt")) && Date.now() < until) await sleep(50);
    const heard = readFileSync(log, "utf8");
    expect(heard).toContain('"notification_type":"permission_prompt"');
    expect(heard).toContain('"notification_type":"idle_prompt"');
  });

  test("an interrupted turn is told by neither the terminal nor the Notification hook (the hook ran, the terminal did not)", async () => {
    const log = join(suite.box.dir, "notified.log");
    const script = join(suite.box.dir, "notified.sh");
    writeFileSync(script, `#!/bin/sh\ncat >> ${log}\necho >> ${log}\n`);
    chmodSync(script, 0o755);
    appendFileSync(join(suite.box.configDir, "config.yaml"), `hooks:\n  Notification:\n    - hooks:\n        - type: command\n          command: ${script}\n`);
    suite.model.push(step({ text: Array.from({ length: 400 }, (_, i) => `w${i} `), chunkDelayMs: 25 }), step({ text: "second done" }));
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm" } });
    const out = await screen.record();
    await screen.write(FOCUS_OUT);
    await screen.type("long one", "Enter");
    await screen.waitFor("w3 ");
    await screen.type("C-c");
    await screen.waitFor("interrupted");
    await screen.waitGone(/ working \d+(s|m)/);
    expect(out.bytes()).not.toContain(OSC9_TURN);
    // The next turn, not interrupted, is told by both: the hook's log then holds its one idle_prompt.
    await turn(screen, "short one");
    await screen.waitFor("second done");
    const until = Date.now() + 10_000;
    while (!(existsSync(log) && readFileSync(log, "utf8").includes("idle_prompt")) && Date.now() < until) await sleep(50);
    expect(out.bytes()).toContain(OSC9_TURN);
    expect(readFileSync(log, "utf8").match(/"notification_type":"idle_prompt"/g)).toHaveLength(1);
  });

  test("a terminal that never reports focus gets the bell alone at a turn's end", async () => {
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm" } });
    const out = await screen.record();
    await turn(screen, "hello");
    expect(bells(out.bytes())).toBe(1);
    expect(out.bytes()).not.toContain("\x1b]9;");
  });

  test("tui.notify: bell rings without a desktop notification", async () => {
    setNotify("bell");
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm" } });
    const out = await screen.record();
    await screen.write(FOCUS_OUT);
    await turn(screen, "one");
    expect(bells(out.bytes())).toBe(1);
    expect(out.bytes()).not.toContain("\x1b]9;");
  });

  test("tui.notify: off writes nothing, in focus or out of it", async () => {
    setNotify("off");
    const screen = await suite.open([], { env: { TERM_PROGRAM: "WezTerm" } });
    const out = await screen.record();
    await turn(screen, "one");
    await screen.write(FOCUS_OUT);
    await turn(screen, "two");
    expect(bells(out.bytes())).toBe(0);
    expect(out.bytes()).not.toContain("\x1b]9;");
  });
});

describe("the notification a terminal takes", () => {
  test("OSC 9 where the terminal says it reads it, OSC 777 for foot and urxvt, none for others (the bell alone)", () => {
    expect(desktopEscape({ TERM_PROGRAM: "iTerm.app" })).toBe("osc9");
    expect(desktopEscape({ LC_TERMINAL: "iTerm2", TERM_PROGRAM: "tmux" })).toBe("osc9");
    expect(desktopEscape({ TERM_PROGRAM: "WezTerm" })).toBe("osc9");
    expect(desktopEscape({ TERM_PROGRAM: "ghostty" })).toBe("osc9");
    expect(desktopEscape({ TERM_PROGRAM: "tmux", WEZTERM_PANE: "0" })).toBe("osc9");
    expect(desktopEscape({ TERM_PROGRAM: "tmux", GHOSTTY_RESOURCES_DIR: "/usr/share/ghostty" })).toBe("osc9");
    expect(desktopEscape({ TERM: "xterm-kitty" })).toBe("osc9");
    expect(desktopEscape({ TERM: "foot" })).toBe("osc777");
    expect(desktopEscape({ TERM: "rxvt-unicode-256color" })).toBe("osc777");
    expect(desktopEscape({ TERM_PROGRAM: "Apple_Terminal", TERM: "xterm-256color" })).toBeNull();
    expect(desktopEscape({ TERM: "xterm-256color", WT_SESSION: "x" })).toBeNull();
  });

  test("the bytes: OSC 777's notify with a title, text that cannot end the escape early", () => {
    expect(notificationBytes("desktop", "osc777", "done; really\x07")).toBe("\x1b]777;notify;lembas;done  really \x07\x07");
    expect(notificationBytes("desktop", "osc9", "done")).toBe("\x1b]9;done\x07\x07");
    expect(notificationBytes("desktop", null, "done")).toBe("\x07");
    expect(notificationBytes("bell", "osc9", "done")).toBe("\x07");
    expect(notificationBytes("off", "osc9", "done")).toBe("");
    // Inside tmux: DCS tmux; … ST around the OSC, its ESCs doubled; the bell as it is.
    expect(notificationBytes("desktop", "osc9", "done", true)).toBe("\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\\x07");
    expect(notificationBytes("desktop", "osc777", "done", true)).toBe("\x1bPtmux;\x1b\x1b]777;notify;lembas;done\x07\x1b\\\x07");
    expect(notificationBytes("bell", "osc9", "done", true)).toBe("\x07");
  });
});
