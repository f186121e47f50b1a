import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { isStep, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { digitOf, screenSuite, toolResults } from "../support/screens.ts";
import { HAVE_TMUX, type Screen } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], env: Record<string, string> = {}) => suite.open(args, { env });

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
    expect(toolResults(model)).not.toContain("\x1b");
    expect(toolResults(model)).toContain("They said: use write instead");
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

describe.skipIf(!HAVE_TMUX)("review 2: the first run's connection form", () => {
  let server: ReturnType<typeof Bun.serve> | null = null;
  afterEach(() => {
    server?.stop(true);
    server = null;
  });

  function bare(): void {
    writeFileSync(join(box.configDir, "config.yaml"), "# keep this comment\neffort: high\n");
  }
  async function openBare(env: Record<string, string> = {}): Promise<Screen> {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const screen = await suite.open([], { env: { LEMBAS_LOCAL_PORTS: String(port), ...env }, ready: "Add an OpenAI-compatible connection" });
    await screen.type("Down", "Enter");
    await screen.waitFor("base URL:");
    return screen;
  }

  test("a URL that answers HTML says so in one line and the form stays", async () => {
    bare();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><html><body>\n<h1>Welcome</h1>\n</body></html>", { headers: { "content-type": "text/html" } }) });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitGone("checking…");
    await Bun.sleep(300);
    expect(screen.text()).toContain("base URL:");
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);
    expect(screen.text()).not.toContain("<h1>");
  });

  test("Esc while the connection is checked: its models, when they come, do not open a picker over the menu", async () => {
    bare();
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async () => {
        await Bun.sleep(1500);
        return Response.json({ object: "list", data: [{ id: "late-model", object: "model" }] });
      },
    });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("checking…");
    await screen.type("Escape");
    await screen.waitGone("base URL:");
    await Bun.sleep(2500);
    expect(screen.text()).not.toContain("late-model");
    expect(screen.text()).toContain("Add an OpenAI-compatible connection");
  });

  test("a server that hangs: the check times out in one line and the form stays", async () => {
    bare();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: () => new Promise<Response>(() => {}) });
    // The check's bound (10 s) cut to 2 s, so that the test does not sit it out.
    const screen = await openBare({ LEMBAS_TEST_CONNECTION_CHECK_MS: "2000" });
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("checking…");
    await screen.waitFor(/did not list its models within/, 15_000);
    expect(screen.text()).toContain("base URL:");
    expect(readFileSync(join(box.configDir, "config.yaml"), "utf8")).toBe("# keep this comment\neffort: high\n");
  });

  test("an enormous /models list: the picker opens and a model is saved", async () => {
    bare();
    const data = Array.from({ length: 20_000 }, (_, i) => ({ id: `model-${i}`, object: "model" }));
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => Response.json({ object: "list", data }) });
    const screen = await openBare();
    await screen.write(`http://127.0.0.1:${server.port}/v1`);
    await screen.type("Enter", "Enter", "Enter");
    await screen.waitFor("pick one", 10_000);
    await screen.type("Enter");
    await screen.waitFor("local/model-0 · edit", 10_000);
    expect(Bun.YAML.parse(readFileSync(join(box.configDir, "config.yaml"), "utf8"))).toMatchObject({ effort: "high", model: "local/model-0" });
  });
});

function sentText(): string {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  return JSON.stringify(last?.body.messages ?? []);
}

describe.skipIf(!HAVE_TMUX)("review 2: the composer", () => {
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

  test("a 5 MB paste is folded to a marker in a few seconds and the composer still types", async () => {
    const screen = await open();
    const line = "x".repeat(99);
    const text = Array.from({ length: 50_000 }, () => line).join("\n");
    const started = Date.now();
    const file = join(box.dir, "big.txt");
    writeFileSync(file, text);
    Bun.spawnSync(["tmux", "-L", screen.socket, "load-buffer", file]);
    Bun.spawnSync(["tmux", "-L", screen.socket, "paste-buffer", "-p", "-t", "0"]);
    await screen.waitFor(/\[paste #1 \+50000 lines\]/, 20_000);
    await screen.write(" and more");
    await screen.waitFor("and more", 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
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

describe.skipIf(!HAVE_TMUX)("review 2: sessions", () => {
  function seed(fill: (db: ReturnType<typeof openDb>) => void): void {
    const db = openDb(join(box.stateDir, "lembas.db"));
    fill(db);
    db.close();
  }
  const row = (id: string, root: string, title: string, at: number) => (db: ReturnType<typeof openDb>) => {
    insertSession(db, { id, root, cwd: root, mode: "edit", model: null, effort: "medium", origin: "terminal", title });
    db.query("UPDATE sessions SET updated_at = ?, created_at = ? WHERE id = ?").run(at, at, id);
  };

  test("/sessions lists this project's sessions even when 300 newer ones of other projects exist", async () => {
    const now = Date.now();
    seed((db) => {
      row("ses_mine_old", box.project, "my old work", now - 100_000)(db);
      for (let i = 0; i < 300; i++) row(`ses_other_${i}`, join(box.dir, "elsewhere"), `other ${i}`, now - i)(db);
    });
    const screen = await open();
    await screen.type("/sessions", "Enter");
    await screen.waitFor(/Sessions of this project|there is no other session/);
    expect(screen.text()).toContain("my old work");
  });

  test("/sessions in a project with 500 sessions opens at once and lists them", async () => {
    const now = Date.now();
    seed((db) => {
      for (let i = 0; i < 500; i++) row(`ses_mine_${String(i).padStart(3, "0")}`, box.project, `task ${i}`, now - i * 1000)(db);
    });
    const screen = await open();
    const started = Date.now();
    await screen.type("/sessions", "Enter");
    await screen.waitFor("Sessions of this project");
    expect(Date.now() - started).toBeLessThan(3_000);
    await screen.write("task 499");
    await screen.waitFor("ses_mine_499");
  });
});

describe.skipIf(!HAVE_TMUX)("review 2: more cards", () => {
  const ask = (questions: object[]) => step({ toolCalls: [{ name: "ask_user", arguments: { questions } }] });

  test("a very long label is cut on the card, and the model is given the whole label", async () => {
    const long = `${"very long option ".repeat(30)}END`;
    model.push(ask([{ header: "Pick", question: "Which one?", options: [{ label: long }, { label: "short" }] }]), step({ text: "got it" }));
    const screen = await open();
    await screen.type("ask me", "Enter");
    await screen.waitFor("Which one?");
    expect(screen.text().split("\n").every((l) => l.length <= 120)).toBe(true);
    await screen.type("1");
    await screen.waitFor("got it");
    expect(toolResults(model)).toContain(long);
  });

  test("duplicate labels in a multiple choice: ticking one ticks only that row", async () => {
    model.push(ask([{ header: "Pick", question: "Which ones?", multiple: true, options: [{ label: "same" }, { label: "same" }, { label: "other" }] }]), step({ text: "got them" }));
    const screen = await open();
    await screen.type("ask me", "Enter");
    await screen.waitFor("Which ones?");
    await screen.type("2");
    await screen.waitFor("[x] same");
    expect(screen.text().match(/\[x\]/g)?.length).toBe(1);
    await screen.type("Enter");
    await screen.waitFor("got them");
    expect(toolResults(model)).toContain("→ same");
  });

  test("a plan of 5,000 lines opens and scrolls quickly", async () => {
    const steps = Array.from({ length: 5000 }, (_, i) => `- step number ${i + 1}`).join("\n");
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Huge\n\n${steps}\n` } }] }), step({ text: "ok" }));
    const screen = await open(["--mode", "plan"]);
    await screen.type("plan it", "Enter");
    await screen.waitFor(/… lines 1–16 of \d+/, 10_000);
    const started = Date.now();
    for (let i = 0; i < 20; i++) await screen.type("NPage");
    await screen.waitFor(/… lines 301–316 of/, 10_000);
    expect(Date.now() - started).toBeLessThan(4_000);
    await screen.type("Escape");
    await screen.waitFor("ok");
  });
});

describe.skipIf(!HAVE_TMUX)("review 2: /model, /delete, history", () => {
  test("/model with a ref that is not there is one line and the model stays", async () => {
    const screen = await open();
    await screen.type("/model nowhere/ghost", "Enter");
    await Bun.sleep(500);
    expect(screen.text()).toContain("test/test-model · edit");
    expect(screen.text()).toMatch(/ghost|nowhere/);
    expect(screen.text()).not.toMatch(/\bat .*\.ts:\d+/);
  });

  test("/sessions delete of a session another lembas holds is refused, and the session stays", async () => {
    model.push(step({ text: "first answer" }));
    const other = await open();
    await other.type("hello", "Enter");
    await other.waitFor("first answer");
    await other.type("/status", "Enter");
    const id = (await other.waitFor(/session (ses_[\w-]+)/)).match(/session (ses_[\w-]+)/)?.[1] ?? "";
    const screen = await open();
    await screen.type(`/sessions delete ${id}`, "Enter");
    await screen.waitFor("is open in another lembas process");
    const db = openDb(join(box.stateDir, "lembas.db"));
    const still = db.query("SELECT id FROM sessions WHERE id = ?").get(id);
    db.close();
    expect(still).not.toBeNull();
  });

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

describe.skipIf(!HAVE_TMUX)("review 2: the model's text on a card", () => {
  const EVIL = "\x1b]0;PWNED\x07\x1b[2J";
  test("an approval's command with terminal control does not reach the terminal", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: `echo hi ${EVIL}there` } }] }), step({ text: "fine" }));
    const screen = await open();
    const seen = await screen.record();
    await screen.type("run it", "Enter");
    await screen.waitFor("Yes, once");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });

  test("a question's text and labels with terminal control do not reach the terminal", async () => {
    model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { why: `because ${EVIL}`, questions: [{ header: `H${EVIL}`, question: `Which ${EVIL}one?`, options: [{ label: `first ${EVIL}`, description: `about ${EVIL}` }] }] } }] }),
      step({ text: "fine" }),
    );
    const screen = await open();
    const seen = await screen.record();
    await screen.type("ask", "Enter");
    await screen.waitFor("one?");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });

  test("a plan with terminal control does not reach the terminal", async () => {
    model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# Plan ${EVIL}\n\n- step ${EVIL} one\n` } }] }), step({ text: "fine" }));
    const screen = await open(["--mode", "plan"]);
    const seen = await screen.record();
    await screen.type("plan", "Enter");
    await screen.waitFor("Approve, and carry it out in edit mode");
    await Bun.sleep(200);
    expect(seen.bytes()).not.toContain("PWNED");
    expect(seen.bytes()).not.toContain("\x1b[2J");
    await screen.type("Escape");
    await screen.waitFor("fine");
  });
});
