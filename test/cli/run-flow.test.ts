import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { personText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runInProject, runLembas } from "../support/run.ts";
import { HAVE_TMUX, openScreen } from "../support/tmux.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const run = (args: string[], stdin?: string) => runInProject(box, args, stdin === undefined ? {} : { stdin });
/** What the model was last sent as the person's message. */
const lastPrompt = () => {
  const messages = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return personText(messages.at(-1)?.content);
};
type Line = { type: string; [key: string]: unknown };
const lines = (stdout: string): Line[] => stdout.trim().split("\n").map((l) => JSON.parse(l) as Line);
/** Whether `lembas sessions list` says the store keeps none. */
const noSessions = async () => (await runLembas(box, ["sessions", "list"])).stderr.includes("no sessions on this device yet");

describe("lembas run reads a prompt as the terminal does", () => {
  test("an @path is attached and a /command expanded", async () => {
    writeFileSync(join(box.project, "notes.txt"), "NOTES-MARKER: the parser drops the last token\n");
    mkdirSync(join(box.project, ".agent", "commands"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "commands", "fix.md"), "---\ndescription: Fix an issue\n---\nFix issue $ARGUMENTS carefully, with a test.");
    model.push(step({ text: "read it" }), step({ text: "fixed" }));
    expect((await run(["what does @notes.txt say?"])).code).toBe(0);
    expect(lastPrompt()).toContain("NOTES-MARKER: the parser drops the last token");
    expect((await run(["/fix 42"])).code).toBe(0);
    expect(lastPrompt()).toContain("Fix issue 42 carefully, with a test.");
  });
});

describe("lembas run: a prompt from stdin", () => {
  test("what is piped in is attached to the prompt as a file named stdin", async () => {
    model.push(step({ text: "looks fine" }));
    const result = await run(["review this"], "diff --git a/x.ts b/x.ts\n+const answer = 42;\n");
    expect(result.code).toBe(0);
    const sent = lastPrompt();
    expect(sent).toStartWith("review this\n\n<file name=\"stdin\"");
    expect(sent).toContain("2\t+const answer = 42;");
  });

  test("- reads the prompt itself from stdin", async () => {
    model.push(step({ text: "fixed" }));
    const result = await run(["-"], "fix it\n");
    expect(result).toMatchObject({ code: 0, stdout: "fixed\n" });
    expect(lastPrompt()).toBe("fix it");
  });

  test("an empty pipe with - is an empty prompt; a huge pipe is refused with the limit", async () => {
    const empty = await run(["-"], "  \n");
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toStartWith("lembas: the prompt is empty");
    expect(empty.stderr.trim().split("\n")).toHaveLength(1);
    const huge = await run(["review this"], "x".repeat(11 * 1024 * 1024));
    expect(huge.code).toBe(2);
    expect(huge.stderr.trim()).toBe("lembas: stdin is more than 10 MiB (10485760 bytes), the limit of one attachment: pipe in less, or name a file as @path");
    expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
    expect(await noSessions()).toBe(true);
  });

  test("lembas with its prompt piped in reads it as run - does: bounded, and an empty one is an empty prompt", async () => {
    model.push(step({ text: "fixed" }));
    const piped = await runLembas(box, [], { cwd: box.project, stdin: "fix it\n" });
    expect(piped).toMatchObject({ code: 0, stdout: "fixed\n" });
    expect(lastPrompt()).toBe("fix it");
    const huge = await runLembas(box, [], { cwd: box.project, stdin: "x".repeat(11 * 1024 * 1024) });
    expect(huge.code).toBe(2);
    expect(huge.stderr.trim()).toBe("lembas: stdin is more than 10 MiB (10485760 bytes), the limit of one attachment: pipe in less, or name a file as @path");
    const empty = await runLembas(box, [], { cwd: box.project, stdin: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toStartWith("lembas: the prompt is empty");
  });
});

describe("lembas run --format json", () => {
  test("ends with one result event: ok, the stop reason, the session, the time and the tokens", async () => {
    model.push(step({ text: "hi", usage: { prompt_tokens: 120, completion_tokens: 7 } }));
    const result = await run(["--format", "json", "hello"]);
    expect(result.code).toBe(0);
    const events = lines(result.stdout);
    const session = events[0] as Line & { id: string };
    expect(events.filter((e) => e.type === "result")).toHaveLength(1);
    expect(events.at(-1)).toEqual({
      type: "result",
      ok: true,
      stopReason: "end_turn",
      error: null,
      sessionId: session.id,
      turnId: expect.any(String),
      durationMs: expect.any(Number),
      usage: { promptTokens: 120, completionTokens: 7 },
      cost: null,
    });
  });

  test("after an error: done says error, the result says why, and the exit code is 1", async () => {
    model.push(step({ fail: { status: 401 } }));
    const result = await run(["--format", "json", "hello"]);
    expect(result.code).toBe(1);
    const events = lines(result.stdout);
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "error" });
    const last = events.at(-1);
    expect(last).toMatchObject({ type: "result", ok: false, stopReason: "error", sessionId: null });
    expect(String(last?.error)).toBe(String(events.find((e) => e.type === "error")?.message));
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("a run refused before it starts still ends with a result", async () => {
    const result = await run(["--format", "json", "--mode", "fast", "hello"]);
    expect(result.code).toBe(2);
    expect(lines(result.stdout)).toEqual([expect.objectContaining({ type: "result", ok: false, stopReason: "error", error: "--mode must be one of plan, manual, edit, auto", sessionId: null })]);
  });

  test("so does one whose words are refused: an unknown option, a missing prompt, an empty one", async () => {
    const refusals: [string[], string][] = [
      [["--format", "json", "--modle", "plan", "hello"], "unknown option --modle"],
      [["--format=json"], "lembas run needs PROMPT (lembas run --help says more)"],
      [["--yes", "--format", "json", "--session"], "--session needs a value"],
      [["--format", "json", "  "], "the prompt is empty"],
    ];
    for (const [args, error] of refusals) {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      const [line] = lines(result.stdout);
      expect(lines(result.stdout)).toHaveLength(1);
      expect(line).toMatchObject({ type: "result", ok: false, stopReason: "error", sessionId: null, turnId: null });
      expect(String(line?.error)).toStartWith(error);
      expect(result.stderr).toContain(String(line?.error));
    }
    // Asked for text, a refusal prints nothing on stdout.
    expect((await run(["--modle", "plan", "hello"])).stdout).toBe("");
  });

  test("a failed turn's task end event says the stop reason its done event says", async () => {
    model.push(step({ fail: { status: 401 } }));
    const events = lines((await run(["--format", "json", "hello"])).stdout);
    const ended = events.filter((e) => e.type === "task" && e.state === "end");
    expect(ended).toEqual([expect.objectContaining({ stopReason: "error" })]);
    expect(events.find((e) => e.type === "done")).toMatchObject({ stopReason: "error", turnId: ended[0]?.turnId });
  });
});

describe("lembas run: the session it keeps", () => {
  test("a run whose model never answered keeps no session", async () => {
    model.push(step({ fail: { status: 401 } }));
    expect((await run(["hello"])).code).toBe(1);
    expect((await run(["--model", "nowhere/none", "hello"])).code).not.toBe(0);
    expect((await run([""])).code).toBe(2);
    expect(await noSessions()).toBe(true);
  });

  test("the text output ends by naming the session and how to go on with it", async () => {
    model.push(step({ text: "The word is apricot." }));
    const first = await run(["remember apricot"]);
    const id = /session (ses_[\w-]+)/.exec(first.stderr)?.[1];
    expect(first.stderr.trimEnd().split("\n").at(-1)).toBe(`session ${id} · continue it: lembas run -c "…" (or --session ${id})`);
    model.push(step({ text: "apricot" }));
    const second = await run(["-c", "the word?"]);
    expect(second.stderr.trimEnd().split("\n").at(-1)).toBe(`session ${id} · continue it: lembas run -c "…" (or --session ${id})`);
  });
});

describe.skipIf(!HAVE_TMUX)("lembas run: Ctrl-C at a terminal", () => {
  test("at an approval it cancels the turn (exit 130) instead of answering no and going on", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "went on" }));
    const screen = await openScreen(box, { args: ["run", "make ran.txt"], cwd: box.project });
    try {
      await screen.waitFor("allow?");
      await screen.type("C-c");
      expect(await screen.exited()).toBe(130);
      expect(screen.text()).toContain("lembas: cancelled");
      expect(screen.text()).not.toContain("went on");
      expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
      expect(existsSync(join(box.project, "ran.txt"))).toBe(false);
      expect(screen.text()).toMatch(/session ses_[\w-]+ · continue it/);
    } finally {
      await screen.close();
    }
  });

  test("while the model has not answered yet it cancels, and keeps no session", async () => {
    model.push(step({ fail: "hang" }));
    const screen = await openScreen(box, { args: ["run", "hello"], cwd: box.project });
    try {
      await model.waitForRequests(1);
      await screen.type("C-c");
      expect(await screen.exited()).toBe(130);
      expect(screen.text()).toContain("lembas: cancelled");
    } finally {
      await screen.close();
    }
    expect(await noSessions()).toBe(true);
  });

  test("during start-up (waiting for a prompt on stdin) it ends the run at once", async () => {
    const screen = await openScreen(box, { args: ["run", "-"], cwd: box.project });
    try {
      await screen.waitFor("then Ctrl-D");
      await screen.type("C-c");
      expect(await screen.exited()).toBe(130);
      expect(screen.text()).toContain("lembas: cancelled");
    } finally {
      await screen.close();
    }
    expect(await noSessions()).toBe(true);
  });

  test("at a question it cancels the turn", async () => {
    const questions = [{ header: "Colour", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] }];
    model.push(step({ toolCalls: [{ name: "ask_user", arguments: { questions } }] }), step({ text: "went on" }));
    const screen = await openScreen(box, { args: ["run", "pick a colour"], cwd: box.project });
    try {
      await screen.waitFor("your own answer");
      await screen.type("C-c");
      expect(await screen.exited()).toBe(130);
      expect(model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
    } finally {
      await screen.close();
    }
  });
});
