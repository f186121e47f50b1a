/** The terminal's approval card keeps a rule beyond the session, for as long as Tab says; /permissions lists it. */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ChatRequest, contentText, type Reply, type ScriptedModel } from "../support/model.ts";
import { runLembas, type Sandbox } from "../support/run.ts";
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

  test("a custom agent's card keeps its rule too: /permissions lists it, and the agent's next session runs the command without asking", async () => {
    mkdirSync(join(box.project, ".agent", "agents"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "agents", "writer.md"), "---\nname: writer\ndescription: Makes files\ntools: Bash\n---\nYou make files.\n");
    const isWriter = (body: ChatRequest) => contentText(body.messages?.[0]?.content).includes('You work as the agent "writer"');
    const writerStep = (done: number, reply: Reply): Reply => ({ ...reply, match: (b) => isWriter(b) && (b.messages ?? []).filter((m) => m.role === "assistant").length === done });
    const ownStep = (reply: Reply): Reply => ({ ...reply, match: (b) => (b.tools?.length ?? 0) > 0 && !isWriter(b) });
    const turn = (file: string) =>
      model.push(
        ownStep({ toolCalls: [{ name: "task", arguments: { description: "make", prompt: `make ${file}`, agent: "writer" } }] }),
        writerStep(0, { toolCalls: [{ name: "bash", arguments: { command: `touch ${file}` } }] }),
        writerStep(1, { text: `made ${file}` }),
        ownStep({ text: "all done" }),
      );
    turn("one.txt");
    const screen = await suite.open([]);
    await screen.type("make a file", "Enter");
    await screen.waitFor("Yes, and keep Bash(touch:*) for this project (until revoked)");
    await screen.type(digitOf(screen, "Yes, and keep Bash(touch:*) for this project (until revoked)"));
    await screen.waitFor("all done");
    expect(existsSync(join(box.project, "one.txt"))).toBe(true);
    await screen.type("/permissions", "Enter");
    await screen.waitFor(/allow +Bash\(touch:\*\) +in [^]*?, kept from a card/);
    // A new session where nobody could answer a card: the kept rule lets the agent's command run.
    turn("two.txt");
    const run = await runLembas(box, ["run", "--mode", "manual", "make another"], { cwd: box.project });
    expect(run.code).toBe(0);
    expect(existsSync(join(box.project, "two.txt"))).toBe(true);
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
