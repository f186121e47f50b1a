import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isTitle, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { runLembas, type Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], env: Record<string, string> = {}) => suite.open(args, { env });

const sessionIdOf = (text: string) => /lembas -r (ses_[\w-]+)/.exec(text)?.[1] ?? "";
const listed = async () => (await runLembas(box, ["sessions", "list"], { cwd: box.project })).stdout;
const stepModels = () => model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0).map((r) => r.body.model);

/** A session of the project with one turn in it, by `lembas run` (no terminal to open and quit for it); its id. */
async function oneTurnSession(prompt: string, answer: string): Promise<string> {
  model.push(step({ text: answer }));
  const run = await runLembas(box, ["run", prompt], { cwd: box.project });
  expect(run.code).toBe(0);
  return / session (ses_[\w-]+)$/m.exec(run.stderr)?.[1] ?? "";
}

describe.skipIf(!HAVE_TMUX)("the terminal's own commands", () => {
  test("/sessions moves to another session, shows its turns, and discards the empty one left", async () => {
    const id = await oneTurnSession("remember the word banana", "first answer");
    const screen = await open();
    expect((await listed()).match(/ses_/g)).toHaveLength(2);
    await screen.type("/sessions", "Enter");
    await screen.waitFor("Sessions of this project");
    expect(screen.text()).toContain(`1 turn · ${id}`);
    expect(screen.text()).toContain("… every session on this device");
    await screen.type("Enter");
    await screen.waitFor(`Session ${id}`);
    await screen.type("Enter");
    await screen.waitFor(`resumed session ${id}`);
    expect(screen.text()).toContain("› remember the word banana");
    expect(screen.text()).toContain("first answer");
    const list = await listed();
    expect(list.match(/ses_/g)).toHaveLength(1);
    expect(list).toContain(id);
  });

  test("/sessions rename and delete act on another session", async () => {
    const id = await oneTurnSession("a first task", "done one");
    const screen = await open();
    await screen.type("/sessions", "Enter");
    await screen.waitFor(`1 turn · ${id}`);
    await screen.type("Enter");
    await screen.waitFor("Rename");
    await screen.type("Down", "Enter");
    await screen.waitFor(`/sessions rename ${id}`);
    await screen.type("Old work", "Enter");
    await screen.waitFor(`renamed ${id}: Old work`);
    expect(await listed()).toContain("Old work");
    await screen.type(`/sessions delete ${id}`, "Enter");
    await screen.waitFor(`deleted ${id}`);
    expect(await listed()).not.toContain(id);
  });

  test("a picker filtered down to nothing says so in its own words, and Backspace brings the items back", async () => {
    model.setModels([{ id: "test-model" }, { id: "other-model" }]);
    const screen = await open();
    await screen.type("/model", "Enter");
    await screen.waitFor("test/other-model");
    await screen.type("zz");
    await screen.waitFor("nothing starts with “zz”");
    expect(screen.text()).not.toContain("No matching commands");
    await screen.type("BSpace", "BSpace");
    await screen.waitFor("test/other-model");
    await screen.type("Escape");
  });

  test("/model switches through the picker and with a ref; the next request uses it", async () => {
    model.setModels([{ id: "test-model" }, { id: "other-model" }, { id: "third-model" }]);
    const screen = await open();
    await screen.type("/model", "Enter");
    await screen.waitFor("test/third-model");
    await screen.type("test/o");
    await screen.waitGone("test/third-model");
    await screen.type("Enter");
    await screen.waitFor("model: test/other-model · effort medium");
    await screen.waitFor("test/other-model · edit · effort medium");
    model.push(step({ text: "from the other one" }));
    await screen.type("hello", "Enter");
    await screen.waitFor("from the other one");
    expect(stepModels().at(-1)).toBe("other-model");

    await screen.type("/model test/third-model", "Enter");
    await screen.waitFor("model: test/third-model · effort medium");
    await screen.waitFor("test/third-model · edit");
    model.push(step({ text: "from the third" }));
    await screen.type("again", "Enter");
    await screen.waitFor("from the third");
    expect(stepModels().at(-1)).toBe("third-model");

    await screen.type("/model test/nothing-like-it", "Enter");
    await screen.waitFor("! /model takes a model this device has (one of test/test-model, test/other-model, test/third-model)");
    await screen.waitFor("test/third-model · edit");
  });

  test("/effort high and /mode plan change the session; a bad level or mode is one line", async () => {
    const screen = await open();
    await screen.type("/effort high", "Enter");
    await screen.waitFor("model: test/test-model · effort high");
    await screen.waitFor("test/test-model · edit · effort high");
    await screen.type("/mode plan", "Enter");
    await screen.waitFor("test/test-model · plan · effort high");
    // The person's own change: the status bar says it, the transcript adds no line.
    expect(screen.text()).not.toContain("mode: plan");
    await screen.type("/effort extreme", "Enter");
    await screen.waitFor("/effort takes one of off, low, medium, high");
    await screen.type("/mode fast", "Enter");
    await screen.waitFor("/mode takes one of plan, manual, edit, auto");
    await screen.type("/help me", "Enter");
    await screen.waitFor("there is no command /me (/help lists them)");
    model.push(step({ text: "planned" }));
    await screen.type("think", "Enter");
    await screen.waitFor("planned");
    const last = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0).at(-1);
    const prompt = last?.body.messages?.findLast((m) => m.role === "user")?.content;
    expect(contentText(prompt)).toStartWith("think\n\n[lembas] The session is in plan mode:");
  });

  test("/rename renames this session, kept in the store", async () => {
    model.push(step({ text: "an answer" }));
    const screen = await open();
    await screen.type("start something", "Enter");
    await screen.waitFor("an answer");
    // The model names the session after its first turn: the rename comes after that.
    for (let i = 0; i < 200 && !model.requests.some((r) => isTitle(r.body)); i++) await Bun.sleep(25);
    await Bun.sleep(200);
    await screen.type("/rename The renamed one", "Enter");
    await screen.waitFor("renamed: The renamed one");
    await screen.type("C-d");
    await screen.exited();
    expect(await listed()).toContain("The renamed one");
  });

  test("/delete deletes this session after a yes and opens a new one", async () => {
    model.push(step({ text: "soon gone" }));
    const screen = await open();
    await screen.type("doomed work", "Enter");
    await screen.waitFor("soon gone");
    const before = await listed();
    const id = /(ses_[\w-]+)/.exec(before)?.[1] ?? "";
    expect(id).toMatch(/^ses_/);
    await screen.type("/delete", "Enter");
    await screen.waitFor("Delete this session (1 turn)?");
    await screen.type("Down", "Enter");
    await screen.waitFor(`deleted ${id}`);
    expect(await listed()).not.toContain(id);
    model.push(step({ text: "fresh start" }));
    await screen.type("new work", "Enter");
    await screen.waitFor("fresh start");
    await screen.type("C-d");
    await screen.exited();
    const now = sessionIdOf(screen.text());
    expect(now).toMatch(/^ses_/);
    expect(now).not.toBe(id);
  });

  test("/export writes the session as Markdown, and never over an existing file", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo exported-run", description: "say it" } }] }), step({ text: "The **answer** it gave." }));
    const screen = await open(["--mode", "auto"]);
    await screen.type("run the echo", "Enter");
    await screen.waitFor("The answer it gave.");
    await screen.waitGone(/working \d/);
    await screen.type("/export", "Enter");
    await screen.waitFor("exported 1 turn to");
    const id = /lembas-(ses_[\w-]+)\.md/.exec(screen.text())?.[1] ?? "";
    const file = join(box.project, `lembas-${id}.md`);
    const markdown = readFileSync(file, "utf8");
    expect(markdown).toContain("## You\n\nrun the echo");
    expect(markdown).toContain("- `Run echo exported-run`");
    expect(markdown).toContain("The **answer** it gave.");
    await screen.type("/export", "Enter");
    await screen.waitFor(`lembas-${id}-1.md`);
    expect(readFileSync(file, "utf8")).toBe(markdown);
    expect(existsSync(join(box.project, `lembas-${id}-1.md`))).toBe(true);
    await screen.type("/export notes/out.md", "Enter");
    await screen.waitFor("could not be written");
  });

  test("/theme light changes the colours and is kept in config.yaml; a bad name is one line", async () => {
    const screen = await open();
    await screen.type("/theme light", "Enter");
    await screen.waitFor("theme: light (kept in config.yaml)");
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toContain("theme: light");
    await screen.type("/theme pink", "Enter");
    await screen.waitFor("/theme takes one of dark, light");
  });

  test("/settings KEY VALUE writes as lembas config set does; a bad value is one line", async () => {
    const screen = await open();
    await screen.type("/settings remote.max_mode plan", "Enter");
    await screen.waitFor("remote.max_mode = plan (saved in config.yaml; in force from the next turn)");
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toMatchObject({ remote: { max_mode: "plan" } });
    await screen.type("/settings remote.max_mode fast", "Enter");
    await screen.waitFor("remote.max_mode: must be one of plan, manual, edit, auto");
    await screen.type("/settings", "Enter");
    await screen.waitFor("Settings (config.yaml)");
    await screen.type("effort");
    await screen.type("Enter");
    await screen.waitFor("(now)");
    await screen.type("hi");
    await screen.type("Enter");
    await screen.waitFor("effort = high (saved in config.yaml; a new session starts with it)");
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toMatchObject({ effort: "high", remote: { max_mode: "plan" } });
  });

  test("/settings shows every setting at once on a 40-row screen, tui.vim and tui.notify with them; tui.vim applies at once", async () => {
    const screen = await open();
    await screen.type("/settings", "Enter");
    await screen.waitFor("Settings (config.yaml)");
    const shown = await screen.waitFor("instructions");
    for (const key of ["model", "effort", "mode", "theme", "tui.vim", "tui.notify", "remote.max_mode", "remote.approval_timeout", "personality", "personality_custom", "instructions"]) {
      expect(shown).toMatch(new RegExp(`^\\W*${key.replace(".", "\\.")}\\s`, "m"));
    }
    // No row is scrolled away: the list has no "(1/14)".
    expect(shown).not.toMatch(/\(\d+\/\d+\)/);
    await screen.type("tui.v");
    await screen.type("Enter");
    await screen.waitFor("(now)");
    await screen.type("true");
    await screen.type("Enter");
    await screen.waitFor("tui.vim = true (kept in config.yaml)");
    await screen.waitFor("-- INSERT --");
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toMatchObject({ tui: { vim: true } });
  });

  test("/status says the session and the service in one block, a fact a line (it was a paragraph each, 12 rows); /help lists the shared commands too", async () => {
    const screen = await open();
    await screen.type("/status", "Enter");
    await screen.waitFor("service: not running");
    expect(screen.text()).toMatch(/· session \S+\n {2}model test\/test-model · mode edit · effort medium · 0 tokens here\n {2}in /);
    expect(screen.text()).toMatch(/\n {2}service: not running/);
    await screen.type("/help", "Enter");
    await screen.waitFor(/\/compact +Summarise the conversation/);
    expect(screen.text()).toMatch(/\/quit +Quit/);
    expect(screen.text()).toContain("/continue ");
  });
});

describe.skipIf(!HAVE_TMUX)("/copy", () => {
  test("without a clipboard program the last answer goes to the terminal by OSC 52", async () => {
    model.push(step({ text: "copy **this** answer" }));
    const screen = await open([], { DISPLAY: "", WAYLAND_DISPLAY: "" });
    const tmux = (...args: string[]) => Bun.spawnSync(["tmux", "-L", screen.socket, ...args], { stdout: "pipe" }).stdout.toString();
    tmux("set-option", "-g", "set-clipboard", "on");
    await screen.type("/copy", "Enter");
    await screen.waitFor("there is no answer to copy yet");
    await screen.type("give me text", "Enter");
    await screen.waitFor("copy this answer");
    await screen.type("/copy", "Enter");
    await screen.waitFor("sent the last answer (20 characters) to the terminal's clipboard (OSC 52");
    expect(tmux("show-buffer")).toBe("copy **this** answer");
  });
});

describe("lembas config set theme", () => {
  test("light is kept; a theme that is not one is refused", async () => {
    const set = await runLembas(box, ["config", "set", "theme", "light"]);
    expect(set).toMatchObject({ code: 0, stdout: "theme = light\n" });
    const bad = await runLembas(box, ["config", "set", "theme", "pink"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("theme: must be one of dark, light");
  });
});
