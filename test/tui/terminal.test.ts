import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_RETRY } from "../../src/model/retry.ts";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { runLembas, type Sandbox } from "../support/run.ts";
import { type ScreenOptions, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite();
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], opts: ScreenOptions = {}) => suite.open(args, opts);

const sessionIdOf = (text: string) => /lembas -r (ses_[\w-]+)/.exec(text)?.[1] ?? "";

describe.skipIf(!HAVE_TMUX)("the interactive terminal", () => {
  test("opens with the status bar, streams an answer, and on quit names the session and how to resume it", async () => {
    model.push(step({ text: "Here is **the** answer:\n\n```ts\nconst x = 1;\n```\n\nAll done.", chunkDelayMs: 5 }));
    const screen = await open();
    await screen.waitFor("test/test-model · edit · effort medium");
    await screen.type("say hello", "Enter");
    await screen.waitFor("› say hello");
    await screen.waitFor("All done.");
    expect(screen.text()).toContain("const x = 1;");
    expect(screen.text()).toContain("Here is the answer:");
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
    const id = sessionIdOf(screen.text());
    expect(id).toMatch(/^ses_/);
    expect(screen.text()).toContain(`Resume it with: lembas -r ${id}`);
  });

  test("-c resumes the directory's most recent session and shows its turns", async () => {
    model.push(step({ text: "first answer" }));
    const first = await open();
    await first.waitFor("test/test-model");
    await first.type("remember the word banana", "Enter");
    await first.waitFor("first answer");
    await first.type("C-d");
    await first.exited();
    const id = sessionIdOf(first.text());

    model.push(step({ text: "second answer" }));
    const second = await open(["-c"]);
    await second.waitFor(`resumed session ${id}`);
    expect(second.text()).toContain("› remember the word banana");
    expect(second.text()).toContain("first answer");
    await second.type("and now?", "Enter");
    await second.waitFor("second answer");
    const steps = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    expect(JSON.stringify(steps.at(-1)?.body.messages)).toContain("banana");
    await second.type("C-d");
    await second.exited();
    expect(sessionIdOf(second.text())).toBe(id);
  });

  test("a resumed session shows each step in the order it came: what the model said, then the tool it called", async () => {
    model.push(step({ text: "Let me look first.", toolCalls: [{ name: "read", arguments: { path: "notes.md" } }] }), step({ text: "Looked at it." }));
    writeFileSync(join(box.project, "notes.md"), "hello\n");
    const first = await open();
    await first.waitFor("test/test-model");
    await first.type("check notes", "Enter");
    await first.waitFor("Looked at it.");
    await first.type("C-d");
    await first.exited();
    const second = await open(["-c"]);
    await second.waitFor("Looked at it.");
    const text = second.text();
    const said = text.indexOf("Let me look first.");
    const read = text.indexOf("Read notes.md");
    expect(said).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(said);
    expect(text.indexOf("Looked at it.")).toBeGreaterThan(read);
  });

  test("lembas PROMPT in a terminal opens the session with PROMPT as its first message", async () => {
    model.push(step({ text: "answered the first message" }));
    const screen = await open(["fix", "the", "tests"]);
    await screen.waitFor("› fix the tests");
    await screen.waitFor("answered the first message");
  });

  test("an empty session is discarded on quit: nothing to resume is named", async () => {
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
    expect(screen.text()).not.toContain("lembas -r");
    const list = await runLembas(box, ["sessions", "list"], { cwd: box.project });
    expect(list.stdout).not.toContain("ses_");
  });

  test("Esc interrupts the running turn: it answers cancelled and the composer takes the next prompt", async () => {
    // Its first words, then nothing more until the turn is interrupted (which ends the request).
    model.push(step({ text: ["slow slow ", "slow ".repeat(398)], hold: new Promise(() => {}) }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("write a lot", "Enter");
    await screen.waitFor("working");
    await screen.waitFor("slow slow");
    await screen.type("Escape");
    await screen.waitFor("interrupted");
    await screen.waitGone(/working \d/);
    model.push(step({ text: "fresh reply" }));
    await screen.type("next one", "Enter");
    await screen.waitFor("fresh reply");
  });

  test("with no model in config.yaml, the status bar names the one the engine will use", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `connections:\n  test:\n    base_url: ${model.url}\n`);
    model.setModels([{ id: "first-of-them" }, { id: "second" }]);
    const screen = await open();
    await screen.waitFor("test/first-of-them · edit");
  });

  test("Ctrl-C clears the composer; on an empty one a second Ctrl-C quits", async () => {
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.write("some draft text");
    await screen.waitFor("some draft text");
    await screen.type("C-c");
    await screen.waitGone("some draft text");
    expect(screen.exitCode()).toBeNull();
    await screen.type("C-c");
    await screen.waitFor("press Ctrl-C again to quit");
    await screen.type("C-c");
    expect(await screen.exited()).toBe(0);
  });

  test("an approval answered with 1 runs the command; Shift+Tab cycles the mode", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo approved-run > out.txt", description: "write a file" } }] }), step({ text: "wrote it" }));
    const screen = await open();
    await screen.waitFor("test/test-model · edit");
    await screen.type("write out.txt", "Enter");
    await screen.waitFor("1. Yes, once");
    expect(screen.text()).toContain("$ echo approved-run > out.txt");
    expect(screen.text()).toMatch(/2\. Yes, and allow .*for this session/);
    expect(screen.text()).not.toContain("for this session for this session");
    await screen.type("1");
    await screen.waitFor("wrote it");
    expect(readFileSync(join(box.project, "out.txt"), "utf8")).toBe("approved-run\n");
    await screen.type("BTab");
    await screen.waitFor("test/test-model · auto");
  });

  test("an approval denied with Esc does not run, and the model is told", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch denied.txt" } }] }), step({ text: "understood" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("make a file", "Enter");
    await screen.waitFor("1. Yes, once");
    await screen.type("Escape");
    await screen.waitFor("understood");
    expect(existsSync(join(box.project, "denied.txt"))).toBe(false);
    // The person's No, said as theirs.
    expect(screen.text()).toContain("⊘ Run touch denied.txt\n  ⎿ denied by you\n");
  });

  test("a terminal narrower than 40 columns gets a one-line notice, and the full screen once it grows", async () => {
    const screen = await open([], { columns: 30, rows: 20 });
    await screen.waitFor("Too small: lembas needs at");
    await screen.resize(100, 30);
    await screen.waitFor("test/test-model");
  });

  test("a model server that answers 500 is said in one line, and the composer is usable again", async () => {
    // Retry-After: 0 lets the program's own retries (DEFAULT_RETRY: minutes of backoff) run at once.
    for (let i = 0; i <= DEFAULT_RETRY.retries; i++) model.push(step({ fail: { status: 500, body: "boom", retryAfter: 0 } }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hello", "Enter");
    await screen.waitFor("✗ ", 20_000);
    await screen.waitGone(/working \d/);
    model.push(step({ text: "back again" }));
    await screen.type("retry", "Enter");
    await screen.waitFor("back again");
  }, 30_000);

  test("SIGTERM cancels the running turn and exits with the session kept", async () => {
    // Its first words, then nothing more until the program is stopped (which ends the request).
    model.push(step({ text: ["long long ", "long ".repeat(498)], hold: new Promise(() => {}) }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("go", "Enter");
    await screen.waitFor("long long");
    process.kill(screen.pid(), "SIGTERM");
    expect(await screen.exited()).toBe(0);
    const id = sessionIdOf(screen.text());
    expect(id).toMatch(/^ses_/);
    const list = await runLembas(box, ["sessions", "list"], { cwd: box.project });
    expect(list.stdout).toContain(id);
  });

  test("SIGHUP (the terminal went away) takes the quit path: the session is kept", async () => {
    model.push(step({ text: "kept answer" }));
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("hello", "Enter");
    await screen.waitFor("kept answer");
    process.kill(screen.pid(), "SIGHUP");
    expect(await screen.exited()).toBe(0);
    expect(sessionIdOf(screen.text())).toMatch(/^ses_/);
  });

  test("when the terminal goes away (its tmux server killed), the program ends instead of spinning", async () => {
    const screen = await open();
    await screen.waitFor("test/test-model");
    const pid = screen.pid();
    Bun.spawnSync(["tmux", "-L", screen.socket, "kill-server"]);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && alive(); i++) await Bun.sleep(25);
    expect(alive()).toBe(false);
  });

  test("Ctrl-Z suspends the program, and when it is continued the screen is drawn again", async () => {
    const screen = await open();
    await screen.waitFor("test/test-model");
    await screen.type("C-z");
    const state = () => readFileSync(`/proc/${screen.pid()}/stat`, "utf8").split(") ")[1]?.[0];
    for (let i = 0; i < 100 && state() !== "T"; i++) await Bun.sleep(20);
    expect(state()).toBe("T");
    await screen.write("typed while stopped");
    process.kill(screen.pid(), "SIGCONT");
    await screen.waitFor("typed while stopped");
    await screen.waitFor("test/test-model");
  });
});

describe("lembas [PROMPT] outside a terminal", () => {
  test("with stdout a pipe, it behaves as lembas run", async () => {
    model.push(step({ text: "piped answer" }));
    const result = await runLembas(box, ["say it"], { cwd: box.project });
    expect(result).toMatchObject({ code: 0, stdout: "piped answer\n" });
  });

  test("a prompt on stdin is run", async () => {
    model.push(step({ text: "from stdin" }));
    const result = await runLembas(box, [], { cwd: box.project, stdin: "the prompt\n" });
    expect(result).toMatchObject({ code: 0, stdout: "from stdin\n" });
  });

  test("a session id that does not exist: one line, exit 2", async () => {
    const result = await runLembas(box, ["-r", "ses_nothere", "hi"], { cwd: box.project });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("ses_nothere");
  });

  test("an unknown option: one line, exit 2", async () => {
    const result = await runLembas(box, ["--frobnicate"], { cwd: box.project });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--frobnicate");
  });
});

describe.skipIf(!HAVE_TMUX)("lembas -r in a terminal", () => {
  test("a session id that does not exist: one line, exit 2, before any screen is drawn", async () => {
    const screen = await open(["-r", "ses_missing"]);
    expect(await screen.exited()).toBe(2);
    expect(screen.text()).toContain("there is no session ses_missing");
    expect(screen.text()).not.toContain("test/test-model");
  });
});
