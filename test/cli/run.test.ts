import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { afterHeader, modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
let project: string;
modelProjectEach((made) => {
  ({ box, model } = made);
  project = box.project;
});

const run = (args: string[]) => runLembas(box, ["run", ...args], { cwd: project });

describe("lembas run", () => {
  test("prints the answer on stdout and exits 0", async () => {
    model.push(step({ text: "Hello from the model." }));
    const result = await run(["say hello"]);
    expect(afterHeader(result.stderr)).toMatch(/^session ses_[\w-]+ · continue it: lembas run -c "…" \(or --session ses_[\w-]+\)\n$/);
    expect(result).toMatchObject({ code: 0, stdout: "Hello from the model.\n" });
  });

  test("--format json prints the bus events as NDJSON", async () => {
    model.push(step({ text: "hi" }));
    const result = await run(["--format", "json", "hello"]);
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    expect(events[0]?.type).toBe("session");
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["task", "prompt", "step", "text", "done"]));
  });

  test("--yes approves what the mode would ask; without it, a command is refused when not interactive", async () => {
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    const refused = await run(["make ran.txt"]);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain("refused");
    expect(existsSync(join(project, "ran.txt"))).toBe(false);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    const approved = await run(["--yes", "make ran.txt"]);
    expect(approved.code).toBe(0);
    expect(readFileSync(join(project, "ran.txt"), "utf8")).toBe("ran\n");
  });

  test("a session is continued by a second process from the store", async () => {
    model.push(step({ text: "The secret word is apricot." }));
    const first = await run(["--format", "json", "remember: apricot"]);
    const sessionId = (JSON.parse(first.stdout.split("\n")[0] ?? "{}") as { id: string }).id;
    expect(sessionId).toStartWith("ses_");
    model.push(step({ text: "apricot" }));
    const second = await run(["--session", sessionId, "what was the word?"]);
    expect(second).toMatchObject({ code: 0, stdout: "apricot\n" });
    const last = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
    // The mode is said with the first prompt only: the second process sends what the first sent, and more.
    expect(last.map((m) => contentText(m.content))).toEqual([
      expect.any(String),
      expect.stringMatching(/^remember: apricot\n\n\[lembas\] The session is in \w+ mode: /),
      "The secret word is apricot.",
      "what was the word?",
    ]);
    const earlier = model.requests.filter((r) => isStep(r.body))[0]?.body.messages ?? [];
    expect(last.slice(0, earlier.length)).toEqual(earlier);
    model.push(step({ text: "still apricot" }));
    const third = await run(["--continue", "and again?"]);
    expect(third.stdout).toBe("still apricot\n");
  });

  test("-c --cwd through a symlink continues the session made there (kept at the real path)", async () => {
    const link = join(box.dir, "project-link");
    symlinkSync(project, link);
    model.push(step({ text: "first" }));
    const first = await run(["--cwd", link, "--format", "json", "one"]);
    const made = JSON.parse(first.stdout.split("\n")[0] ?? "{}") as { id: string; cwd: string };
    expect(made.cwd).toBe(realpathSync(project));
    model.push(step({ text: "second" }));
    const second = await run(["-c", "--cwd", link, "--format", "json", "two"]);
    expect((JSON.parse(second.stdout.split("\n")[0] ?? "{}") as { id: string }).id).toBe(made.id);
  });

  test("errors are one line and a non-zero exit", async () => {
    const badMode = await run(["--mode", "fast", "x"]);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr.trim()).toBe("lembas: --mode must be one of plan, manual, edit, auto");
    model.push(step({ fail: { status: 401 } }));
    const unauthorised = await run(["x"]);
    expect(unauthorised.code).toBe(1);
    expect(afterHeader(unauthorised.stderr).trim().split("\n")).toHaveLength(1);
    const unknown = await run(["--session", "ses_nope", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("there is no session ses_nope");
    const empty = await run(["  "]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toStartWith("lembas: the prompt is empty");
    expect(empty.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("with no connection and no local server it says how to add one", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), "");
    const result = await runLembas(box, ["run", "hi"], { cwd: project, env: { LEMBAS_LOCAL_PORTS: "1" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("lembas config set connections.local.base_url http://127.0.0.1:11434/v1");
  });
});
