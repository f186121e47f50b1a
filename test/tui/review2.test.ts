import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, type Sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
const screens: Screen[] = [];

beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
});
afterEach(async () => {
  for (const screen of screens.splice(0)) await screen.close();
  await model.close();
  box.cleanup();
});

async function open(args: string[] = []): Promise<Screen> {
  const screen = await openScreen(box, { args, cwd: box.project });
  screens.push(screen);
  await screen.waitFor("test/test-model");
  return screen;
}

function toolResults(): string {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  const results = (last?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
  return results.join("\n---\n");
}

function digitOf(screen: Screen, label: string): string {
  const digit = new RegExp(`(\\d)\\. (?:\\[[ x]\\] )?${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`).exec(screen.text())?.[1];
  if (!digit) throw new Error(`no row "${label}" on the screen:\n${screen.text()}`);
  return digit;
}

describe.skipIf(!HAVE_TMUX)("review 2: cards", () => {
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
    expect(toolResults()).not.toContain("\x1b");
    expect(toolResults()).toContain("They said: use write instead");
  });
});

describe.skipIf(!HAVE_TMUX)("review 2: commands", () => {
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
