/** The terminal's approval card keeps a rule beyond the session, for as long as Tab says; /permissions lists it. */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { digitOf, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});

describe.skipIf(!HAVE_TMUX)("a rule kept from the terminal's card", () => {
  test("Tab sets how long it lasts; /permissions shows where it holds, where it comes from and when it expires", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }), step({ text: "made it" }));
    const screen = await suite.open([]);
    await screen.type("make a file", "Enter");
    await screen.waitFor("Yes, and keep Bash(touch:*) for this project (until revoked)");
    await screen.type("Tab");
    await screen.waitFor("Yes, and keep Bash(touch:*) for this project (for a week)");
    await screen.type(digitOf(screen, "Yes, and keep Bash(touch:*) for this project (for a week)"));
    await screen.waitFor("made it");
    expect(existsSync(join(box.project, "one.txt"))).toBe(true);
    await screen.type("/permissions", "Enter");
    await screen.waitFor(/allow +Bash\(touch:\*\) +in [^]*?, kept from a card [^]*?·\s+expires \d{4}-\d\d-\d\d/);
  });

  test("/permissions revoke ID takes a kept rule back, and /permissions no longer lists it; an unknown id is said so", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }), step({ text: "made it" }));
    const screen = await suite.open([]);
    await screen.type("make a file", "Enter");
    await screen.waitFor("Yes, and keep Bash(touch:*) for this project (until revoked)");
    await screen.type(digitOf(screen, "Yes, and keep Bash(touch:*) for this project (until revoked)"));
    await screen.waitFor("made it");
    await screen.type("/permissions", "Enter");
    await screen.waitFor(/allow +Bash\(touch:\*\) +in [^]*?\((rule_[0-9a-f]{8})\)/);
    const id = /allow +Bash\(touch:\*\) +in [^]*?\((rule_[0-9a-f]{8})\)/.exec(screen.text())?.[1] ?? "";
    await screen.type(`/permissions revoke ${id}`, "Enter");
    await screen.waitFor(`revoked ${id}`);
    await screen.type("/permissions", "Enter");
    await screen.waitFor("No permission rules.");
    await screen.type(`/permissions revoke ${id}`, "Enter");
    await screen.waitFor(`there is no kept rule ${id}`);
  });
});

describe.skipIf(!HAVE_TMUX)("a denial kept from the terminal's card", () => {
  test("No, and deny … for this session refuses the same command later without a card; the card offers to keep a denial everywhere too", async () => {
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch two.txt" } }] }),
      step({ text: "gave up" }),
    );
    const screen = await suite.open([]);
    await screen.type("make files", "Enter");
    await screen.waitFor("No, and keep denying Bash(touch:*) everywhere (until revoked)");
    await screen.type(digitOf(screen, "No, and deny touch commands, for this session"));
    await screen.waitFor("gave up");
    expect(screen.text()).toContain("you denied touch commands for this session");
    expect(existsSync(join(box.project, "one.txt"))).toBe(false);
    expect(existsSync(join(box.project, "two.txt"))).toBe(false);
  });

  test("0 picks the tenth row, No, and keep denying … everywhere: /permissions lists the deny rule kept everywhere", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }), step({ text: "gave up" }));
    const screen = await suite.open([]);
    await screen.type("make a file", "Enter");
    await screen.waitFor("0. No, and keep denying Bash(touch:*) everywhere (until revoked)");
    await screen.type("0");
    await screen.waitFor("gave up");
    expect(existsSync(join(box.project, "one.txt"))).toBe(false);
    await screen.type("/permissions", "Enter");
    await screen.waitFor(/deny +Bash\(touch:\*\) +everywhere/);
  });
});
