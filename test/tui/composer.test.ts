import { beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { type RecordedRequest, type ScriptedModel } from "../support/model.ts";
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

/** The turn steps the model was asked for, in order. */
const steps = (): RecordedRequest[] => model.requests.filter((r) => isStep(r.body));

/** The last user message of a step, as the model got it (text parts joined). */
function lastUser(request: RecordedRequest | undefined): string {
  const user = request?.body.messages?.findLast((m) => m.role === "user");
  if (!user) return "";
  if (typeof user.content === "string") return user.content;
  return JSON.stringify(user.content);
}

async function stepCount(n: number): Promise<RecordedRequest[]> {
  const until = Date.now() + 10_000;
  while (steps().length < n) {
    if (Date.now() > until) throw new Error(`the model was asked for ${steps().length} steps, not ${n}`);
    await Bun.sleep(25);
  }
  return steps();
}

/** The smallest valid PNG: one transparent pixel. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

describe.skipIf(!HAVE_TMUX)("the composer", () => {
  test("Alt+Enter and \\ then Enter put a new line in the prompt; Enter sends it", async () => {
    model.push(step({ text: "got two lines" }), step({ text: "got two more" }));
    const screen = await open();
    await screen.type("first line", "M-Enter", "second line");
    await screen.waitFor("second line");
    expect(steps()).toHaveLength(0);
    await screen.type("Enter");
    await screen.waitFor("got two lines");
    expect(lastUser((await stepCount(1))[0])).toContain("first line\nsecond line");
    await screen.type("third line\\", "Enter", "fourth line");
    await screen.waitFor("fourth line");
    await screen.type("Enter");
    await screen.waitFor("got two more");
    expect(lastUser((await stepCount(2))[1])).toContain("third line\nfourth line");
  });

  test("Up recalls the prompts typed in earlier sessions of the project, newest first, each once", async () => {
    model.push(step({ text: "answer one" }), step({ text: "answer two" }), step({ text: "answer three" }));
    const first = await open();
    for (const [prompt, answer] of [["remember the word banana", "answer one"], ["and cherry", "answer two"], ["remember the word banana", "answer three"]] as const) {
      await first.type(prompt, "Enter");
      await first.waitFor(answer);
    }
    await first.type("C-d");
    await first.exited();

    model.push(step({ text: "second answer" }));
    const second = await open();
    expect(second.text()).not.toContain("banana");
    await second.type("Up");
    await second.waitFor("remember the word banana");
    await second.type("Up");
    await second.waitFor("and cherry");
    // Nothing older: the repeated banana is one entry, its newest use.
    await second.type("Up");
    await Bun.sleep(200);
    expect(second.text()).toContain("and cherry");
    expect(second.text()).not.toContain("banana");
    await second.type("Down");
    await second.waitFor("remember the word banana");
    await second.type("Enter");
    await second.waitFor("second answer");
    expect(lastUser((await stepCount(4))[3])).toContain("remember the word banana");
  });

  test("a 20-line paste is folded to a marker in the composer and sent whole", async () => {
    model.push(step({ text: "read it all" }));
    const screen = await open();
    const lines = Array.from({ length: 20 }, (_, i) => `pasted line ${i + 1}`);
    await screen.write("summarise: ");
    await screen.paste(lines.join("\n"));
    await screen.waitFor("[paste #1 +20 lines]");
    expect(screen.text()).not.toContain("pasted line 7");
    await screen.type("Enter");
    await screen.waitFor("read it all");
    expect(lastUser((await stepCount(1))[0])).toContain(`summarise: ${lines.join("\n")}`);
  });

  test("@ completes a project file, writes its path escaped, counts the pick, and the prompt attaches the file", async () => {
    writeFileSync(join(box.project, "my notes.md"), "the secret word is pomegranate\n");
    writeFileSync(join(box.project, "aaa.txt"), "nothing here\n");
    model.push(step({ text: "noted" }));
    const screen = await open();
    // Unused files come shallowest first, by name.
    await screen.write("@");
    await screen.waitFor("→ aaa.txt");
    await screen.type("C-c");
    await screen.write("read @my");
    await screen.waitFor("my notes.md");
    await screen.type("Tab");
    await screen.waitFor("read @my\\ notes.md");
    await screen.type("C-c");
    await screen.waitGone("read @my");
    // The pick was recorded: the recent file comes first now, before anything is sent.
    await screen.write("read @");
    await screen.waitFor("→ my notes.md");
    await screen.type("Enter");
    await screen.waitFor("read @my\\ notes.md");
    await screen.type("Enter");
    await screen.waitFor("noted");
    const sent = lastUser((await stepCount(1))[0]);
    expect(sent).toContain("read @my\\ notes.md");
    expect(sent).toContain("the secret word is pomegranate");
  });

  test("/ lists the session's commands with their descriptions; Tab completes one", async () => {
    mkdirSync(join(box.project, ".agent", "commands"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "commands", "deploy.md"), "---\ndescription: Ship it to production\n---\nDeploy the app.\n");
    const screen = await open();
    await screen.write("/");
    await screen.waitFor("Summarise the conversation");
    await screen.write("dep");
    await screen.waitFor("Ship it to production");
    await screen.type("BSpace", "BSpace", "BSpace", "BSpace");
    await screen.write("/res");
    await screen.waitFor("Resume a session of this project");
    await screen.type("BSpace", "BSpace", "BSpace");
    await screen.write("com");
    await screen.waitFor("Summarise the conversation");
    await screen.type("Tab");
    await screen.waitGone("Summarise the conversation");
    expect(screen.text()).toMatch(/\/compact\s/);
  });

  test("the rest of a command and Enter arriving in one chunk with the / menu open run the command typed", async () => {
    const screen = await open();
    await screen.write("/");
    await screen.waitFor("Summarise the conversation");
    // One write: the menu opened for "/" is still the one shown when Enter comes (a paste, a slow link).
    await screen.write("help\r");
    await screen.waitFor(/\/quit +Quit/);
    expect(screen.text()).not.toContain("/hel/");
    // The help panel has the keys until Esc closes it.
    await screen.type("Escape");
    await screen.waitGone("Esc closes");
    await screen.write("/");
    await screen.waitFor("Summarise the conversation");
    // A name not finished is completed as it would be typed slowly: the menu's best match for "/stat".
    await screen.write("stat\r");
    await screen.waitFor("service: not running");
    // A command with its argument: the menu has nothing left to complete, and Enter sends it.
    await screen.write("/");
    await screen.waitFor("Summarise the conversation");
    await screen.write("mode plan\r");
    await screen.waitFor("test/test-model · plan ·");
    expect(steps()).toHaveLength(0);
  });

  test("a dragged image path is attached: a marker, a line, the file under the session's attachments", async () => {
    const dir = join(box.dir, "Screen Shots");
    mkdirSync(dir);
    const png = join(dir, "shot one.png");
    writeFileSync(png, PNG);
    model.push(step({ text: "a tiny image" }));
    const screen = await open();
    await screen.write("what is ");
    await screen.paste(png.replace(/ /g, "\\ "));
    await screen.waitFor("[image #1 shot one.png]");
    await screen.waitFor("image #1 shot one.png (");
    await screen.type("Enter");
    await screen.waitFor("a tiny image");
    const sent = JSON.stringify((await stepCount(1))[0]?.body.messages ?? []);
    expect(sent).toMatch(/image attached: shot_one\.png|image_url/);
    const attachments = join(box.stateDir, "attachments");
    const [sessionDir] = readdirSync(attachments);
    expect(sessionDir).toMatch(/^ses_/);
    const files = readdirSync(join(attachments, sessionDir ?? ""));
    expect(files.some((f) => f.endsWith("shot_one.png"))).toBe(true);
  });

  test("an image over 10 MiB is refused with one line, and nothing is attached", async () => {
    const big = join(box.dir, "huge.png");
    writeFileSync(big, Buffer.alloc(10 * 1024 * 1024 + 1));
    const screen = await open();
    await screen.paste(`'${big}'`);
    await screen.waitFor("an image may be at most 10 MiB");
    expect(screen.text()).not.toContain("[image #1");
  });

  test("Ctrl+V takes the clipboard's image through wl-paste; without a clipboard tool it says so", async () => {
    const bin = join(box.dir, "bin");
    mkdirSync(bin);
    const pngFile = join(box.dir, "clip.png");
    writeFileSync(pngFile, PNG);
    // A stand-in for the Wayland tool: it lists a PNG and prints one.
    writeFileSync(join(bin, "wl-paste"), `#!/bin/sh\nif [ "$1" = "--list-types" ]; then printf 'text/plain\\nimage/png\\n'; else cat '${pngFile}'; fi\n`);
    chmodSync(join(bin, "wl-paste"), 0o755);
    model.push(step({ text: "seen the clipboard" }));
    const screen = await open([], { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, WAYLAND_DISPLAY: "wayland-test" });
    await screen.write("look ");
    await screen.type("C-v");
    await screen.waitFor("[image #1 clipboard.png]");
    await screen.type("Enter");
    await screen.waitFor("seen the clipboard");
    expect(JSON.stringify((await stepCount(1))[0]?.body.messages ?? [])).toMatch(/image attached: clipboard\.png|image_url/);

    const bare = await open([], { PATH: "/usr/bin:/bin", WAYLAND_DISPLAY: "", DISPLAY: "" });
    await bare.type("C-v");
    await bare.waitFor("no clipboard tool for images here");
  });

  test("a clipboard tool that never answers is given up on after its time limit, in one line", async () => {
    const bin = join(box.dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "xclip"), "#!/bin/sh\nsleep 8\n");
    chmodSync(join(bin, "xclip"), 0o755);
    const screen = await open([], { PATH: `${bin}:/usr/bin:/bin`, WAYLAND_DISPLAY: "", DISPLAY: ":99" });
    await screen.type("C-v");
    // A child left holding the output open (sleep) is not waited for either.
    await screen.waitFor("xclip did not answer in 3 s", 5_000);
    await screen.write("still typing");
    await screen.waitFor("still typing");
  });

  test("images given while a turn runs wait with their text for the next prompt", async () => {
    const png = join(box.dir, "later.png");
    writeFileSync(png, PNG);
    model.push(step({ text: "slow ".repeat(100), chunkDelayMs: 20 }), step({ text: "now with the image" }));
    const screen = await open();
    await screen.type("go slowly", "Enter");
    await screen.waitFor("slow slow");
    await screen.write("and this ");
    await screen.paste(png);
    await screen.waitFor("[image #1 later.png]");
    await screen.type("Enter");
    await screen.waitFor("images go with a prompt");
    expect(screen.text()).toContain("and this [image #1 later.png]");
    await screen.waitGone(/working \d/);
    await screen.type("Enter");
    await screen.waitFor("now with the image");
    const [first, second] = await stepCount(2);
    expect(JSON.stringify(first?.body.messages)).not.toContain("later.png");
    expect(JSON.stringify(second?.body.messages)).toMatch(/image attached: later\.png|image_url/);
  });

  test("text given while a tool runs reaches the model at its next step", async () => {
    // The command runs until the test has typed its text: a file it waits for.
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "until [ -e typed ]; do sleep 0.05; done", description: "wait" } }] }), step({ text: "took the hint" }));
    const screen = await open(["--mode", "auto"]);
    await screen.type("wait a little", "Enter");
    await screen.waitFor("until [ -e typed ]");
    await screen.type("also mention the tests", "Enter");
    await screen.waitFor("given to the model at its next step");
    writeFileSync(join(box.project, "typed"), "");
    await screen.waitFor("took the hint");
    const [first, second] = await stepCount(2);
    expect(JSON.stringify(first?.body.messages)).not.toContain("also mention the tests");
    expect(JSON.stringify(second?.body.messages)).toContain("also mention the tests");
  });
});
