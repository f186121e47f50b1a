import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { afterHeader, modelProjectEach, type ProjectSandbox, runInProject, runLembas } from "../support/run.ts";
import { trustIn } from "../support/trust.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

/** A hook script in the sandbox (outside the project), made executable; its path. */
function script(name: string, body: string): string {
  const path = join(box.dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** config.yaml with the test connection and HOOKS (YAML lines under `hooks:`). */
function withHooks(hooks: string): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nhooks:\n${hooks}`);
}

const run = (args: string[]) => runInProject(box, args);
const steps = () => model.requests.filter((r) => isStep(r.body)).map((r) => r.body.messages ?? []);
/** The text of every message of the step requests, after the first: what the model was told. */
const toolResults = () => steps().flatMap((messages) => messages.filter((m) => m.role === "tool").map((m) => contentText(m.content)));

describe("PreToolUse hooks", () => {
  test("exit 2 refuses a command: nothing runs, and the model reads the hook's reason", async () => {
    const guard = script("no-rm.sh", `input=$(cat)\ncase "$input" in *'"rm '*) echo "no rm here: move files to .trash instead" >&2; exit 2;; esac\nexit 0`);
    withHooks(`  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: command\n          command: ${guard}\n`);
    writeFileSync(join(box.project, "precious.txt"), "keep me\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "rm precious.txt" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "clean up"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "precious.txt"))).toBe(true);
    expect(toolResults()).toEqual([expect.stringContaining("no rm here: move files to .trash instead")]);
  });

  test("updatedInput changes the command that runs; allow runs it without asking", async () => {
    const rewrite = script("rewrite.sh", `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'`);
    // Claude Code's name for the tool matches lembas's bash.
    withHooks(`  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ${rewrite}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo original > out.txt" } }] }), step({ text: "ok" }));
    const result = await run(["write it"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(box.project, "out.txt"), "utf8")).toBe("rewritten\n");
  });

  test("a hook that hangs is stopped at its time limit, one that exits 1 or prints bad JSON is said: the call runs all the same", async () => {
    const hang = script("hang.sh", "sleep 30");
    const fails = script("fails.sh", "echo 'lint server unreachable' >&2; exit 1");
    const garbled = script("garbled.sh", "echo '{not json'");
    // The hanging one's limit is short: it is what the test waits out. The others have time to end.
    const hooks = [hang, fails, garbled].map((p) => `        - type: command\n          command: ${p}\n          timeout: ${p === hang ? 0.3 : 1}\n`).join("");
    withHooks(`  PreToolUse:\n    - hooks:\n${hooks}`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "run it"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(box.project, "ran.txt"), "utf8")).toBe("ran\n");
    const said = afterHeader(result.stderr);
    expect(said).toContain(`the PreToolUse hook "${hang}" (config.yaml) did not end within its time limit and was stopped`);
    expect(said).toContain(`the PreToolUse hook "${fails}" (config.yaml) exited with code 1: lint server unreachable`);
    expect(said).toContain(`the PreToolUse hook "${garbled}" (config.yaml) printed JSON that does not parse`);
  });

  test("a hook that prints 2 MiB (twice what is read of it) is read within bounds and said; the call runs", async () => {
    const loud = script("loud.sh", "cat >/dev/null\nhead -c 2097152 /dev/zero | tr '\\\\0' x");
    withHooks(`  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${loud}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "run it"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "ran.txt"))).toBe(true);
    expect(afterHeader(result.stderr)).toContain("printed more than 1 MiB: its output was not used");
  });

  test("continue: false refuses the call and ends the turn: no further model request", async () => {
    const halt = script("halt.sh", `cat >/dev/null\necho '{"continue":false,"stopReason":"deploys are frozen"}'`);
    withHooks(`  PreToolUse:\n    - matcher: "Bash"\n      hooks:\n        - type: command\n          command: ${halt}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "SHOULD-NOT-BE-ASKED" }));
    const result = await run(["--yes", "deploy"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "ran.txt"))).toBe(false);
    expect(steps()).toHaveLength(1);
    expect(afterHeader(result.stderr)).toContain("deploys are frozen");
  });
});

describe("PostToolUse hooks", () => {
  test("a block's reason and additionalContext reach the model with the tool's result", async () => {
    const lint = script("lint.sh", `cat >/dev/null\necho '{"decision":"block","reason":"lint: a.ts misses a semicolon","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted with prettier"}}'`);
    withHooks(`  PostToolUse:\n    - matcher: "Write|Edit"\n      hooks:\n        - type: command\n          command: ${lint}\n`);
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.ts", content: "const a = 1\n" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "write a.ts"]);
    expect(result.code).toBe(0);
    const [told] = toolResults();
    expect(told).toContain("lint: a.ts misses a semicolon");
    expect(told).toContain("formatted with prettier");
  });

  test("tool_response has Claude Code's shape: Bash's stdout, Write's and Edit's filePath and success, Read's file", async () => {
    const log = join(box.dir, "post.log");
    const logger = script("post.sh", `line=$(cat)\nprintf '%s\\n' "$line" >> ${log}`);
    withHooks(`  PostToolUse:\n    - hooks:\n        - type: command\n          command: ${logger}\n`);
    writeFileSync(join(box.project, "notes.txt"), "alpha\nbeta\n");
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "echo hello" } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_string: "beta", new_string: "gamma" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "new\n" } }] }),
      step({ text: "ok" }),
    );
    expect((await run(["--yes", "go"])).code).toBe(0);
    type Seen = { tool_name: string; tool_response: Record<string, unknown> };
    const seen = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Seen);
    const response = (name: string) => seen.find((s) => s.tool_name === name)?.tool_response;
    expect(response("bash")).toMatchObject({ stdout: "hello", stderr: "", interrupted: false });
    expect(response("read")).toMatchObject({ type: "text", file: { filePath: join(box.project, "notes.txt"), content: "alpha\nbeta", numLines: 2, startLine: 1 } });
    expect(response("edit")).toMatchObject({ filePath: join(box.project, "notes.txt"), oldString: "beta", newString: "gamma", success: true });
    expect(response("write")).toMatchObject({ filePath: join(box.project, "new.txt"), content: "new\n", success: true });
    // lembas's own fields stay beside them.
    expect(response("bash")).toMatchObject({ output: "hello", is_error: false, exitCode: 0 });
  });

  test("a tool the matcher does not take runs no hook", async () => {
    const lint = script("lint.sh", `cat >/dev/null\necho '{"decision":"block","reason":"HOOK-RAN"}'`);
    withHooks(`  PostToolUse:\n    - matcher: "Write|Edit"\n      hooks:\n        - type: command\n          command: ${lint}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ text: "ok" }));
    expect((await run(["--yes", "say hi"])).code).toBe(0);
    expect(toolResults().join("\n")).not.toContain("HOOK-RAN");
  });

  test("continue: false ends the turn after the tool: no further model request, its stopReason said to the person", async () => {
    const red = script("red.sh", `cat >/dev/null\necho '{"continue":false,"stopReason":"tests are red"}'`);
    withHooks(`  PostToolUse:\n    - matcher: "Bash"\n      hooks:\n        - type: command\n          command: ${red}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "SHOULD-NOT-BE-ASKED" }));
    const result = await run(["--yes", "run the tests"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "ran.txt"))).toBe(true);
    expect(steps()).toHaveLength(1);
    expect(result.stdout).not.toContain("SHOULD-NOT-BE-ASKED");
    expect(afterHeader(result.stderr)).toContain("tests are red");
  });
});

describe("UserPromptSubmit and Stop hooks", () => {
  test("UserPromptSubmit's plain output is added to the prompt the model reads", async () => {
    const context = script("context.sh", "cat >/dev/null\necho 'The release freeze starts Friday.'");
    withHooks(`  UserPromptSubmit:\n    - hooks:\n        - type: command\n          command: ${context}\n`);
    model.push(step({ text: "noted" }));
    const result = await run(["plan the week"]);
    expect(result).toMatchObject({ code: 0, stdout: "noted\n" });
    const user = steps()[0]?.findLast((m) => m.role === "user");
    expect(contentText(user?.content)).toContain("plan the week");
    expect(contentText(user?.content)).toContain("The release freeze starts Friday.");
  });

  test("SessionStart's exit 2 shows its stderr to the person and blocks nothing, as in Claude Code", async () => {
    const start = script("start.sh", `cat >/dev/null\necho "the VPN is down: deploys will fail" >&2\nexit 2`);
    withHooks(`  SessionStart:\n    - hooks:\n        - type: command\n          command: ${start}\n`);
    model.push(step({ text: "hello back" }));
    const result = await run(["hello"]);
    expect(result).toMatchObject({ code: 0, stdout: "hello back\n" });
    expect(afterHeader(result.stderr)).toContain(`the SessionStart hook "${start}" (config.yaml) exited with code 2: the VPN is down: deploys will fail (a SessionStart hook cannot block: the session goes on)`);
  });

  test("UserPromptSubmit's block refuses the prompt: the model is never called", async () => {
    const refuse = script("refuse.sh", `cat >/dev/null\necho '{"decision":"block","reason":"no prompts during the freeze"}'`);
    withHooks(`  UserPromptSubmit:\n    - hooks:\n        - type: command\n          command: ${refuse}\n`);
    const result = await run(["plan the week"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("no prompts during the freeze");
    expect(steps()).toHaveLength(0);
  });

  test("a hook run where the sandbox cannot start says so, once, as bash does", async () => {
    const bin = join(box.dir, "fakebin");
    mkdirSync(bin);
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const hook = script("context.sh", "cat >/dev/null\necho from-the-hook");
    withHooks(`  UserPromptSubmit:\n    - hooks:\n        - type: command\n          command: ${hook}\n  Stop:\n    - hooks:\n        - type: command\n          command: ${hook}\n`);
    model.push(step({ text: "done" }));
    const result = await runLembas(box, ["run", "hello"], { cwd: box.project, env: { PATH: `${bin}:${box.env.PATH}` } });
    expect(result.code).toBe(0);
    const said = "Commands run without the sandbox (bwrap could not start a sandbox (bwrap: No permissions to create new namespace)): they can read lembas's config and state dirs, the device tokens too.";
    expect(result.stderr.split(said).length - 1).toBe(1);
    expect(contentText(steps()[0]?.at(-1)?.content)).toContain("from-the-hook");
  });

  test("a Stop hook sends the model on once with its reason; stop_hook_active lets it end", async () => {
    const gate = script("gate.sh", `input=$(cat)\ncase "$input" in *'"stop_hook_active":true'*) exit 0;; esac\necho '{"decision":"block","reason":"run the tests before you stop"}'`);
    withHooks(`  Stop:\n    - hooks:\n        - type: command\n          command: ${gate}\n`);
    model.push(step({ text: "done" }), step({ text: "tests pass" }));
    const result = await run(["fix it"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("tests pass");
    expect(steps()).toHaveLength(2);
    expect(contentText(steps()[1]?.at(-1)?.content)).toContain("run the tests before you stop");
  });

  test("a Stop hook reads the last assistant message from transcript_path, a JSONL file in Claude Code's line shape", async () => {
    const gate = script(
      "last-words.sh",
      [
        "input=$(cat)",
        `case "$input" in *'"stop_hook_active":true'*) exit 0;; esac`,
        `t=$(printf '%s' "$input" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')`,
        `last=$(grep '"type":"assistant"' "$t" | tail -n 1)`,
        `case "$last" in *'"text":"I am done"'*) echo "you said you are done: show the test output" >&2; exit 2;; esac`,
        "exit 0",
      ].join("\n"),
    );
    withHooks(`  Stop:\n    - hooks:\n        - type: command\n          command: ${gate}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo tested" } }] }), step({ text: "I am done" }), step({ text: "here it is" }));
    const result = await run(["--yes", "fix it"]);
    expect(result.code).toBe(0);
    expect(steps()).toHaveLength(3);
    expect(contentText(steps()[2]?.at(-1)?.content)).toContain("you said you are done: show the test output");
    const [file] = readdirSync(join(box.stateDir, "transcripts"));
    const lines = readFileSync(join(box.stateDir, "transcripts", file ?? ""), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; message: { role: string; content: unknown } });
    expect(lines.map((l) => l.type)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(lines[0]?.message).toEqual({ role: "user", content: "fix it" });
    expect(lines[1]?.message.content).toEqual([expect.objectContaining({ type: "tool_use", name: "Bash", input: { command: "echo tested" } })]);
    expect(lines[2]?.message.content).toEqual([expect.objectContaining({ type: "tool_result", content: "tested", is_error: false })]);
    expect(lines[5]?.message).toEqual({ role: "assistant", content: [{ type: "text", text: "here it is" }] });
  });

  test("a Stop hook that always blocks ends the turn after 3 times, said", async () => {
    const always = script("always.sh", `cat >/dev/null\necho "not yet" >&2\nexit 2`);
    withHooks(`  Stop:\n    - hooks:\n        - type: command\n          command: ${always}\n`);
    model.push(step({ text: "one" }), step({ text: "two" }), step({ text: "three" }), step({ text: "four" }), step({ text: "five" }));
    const result = await run(["fix it"]);
    expect(result.code).toBe(0);
    expect(steps()).toHaveLength(4);
    expect(afterHeader(result.stderr)).toContain("a Stop hook asked the model to go on 3 times in this turn: the turn ends here");
  });

  test("stop_hook_active stays true after a tool call between stops: a guarded hook sends the model on once", async () => {
    const log = join(box.dir, "stop.log");
    const gate = script("gate.sh", `input=$(cat)\necho "$input" >> ${log}\ncase "$input" in *'"stop_hook_active":true'*) exit 0;; esac\necho '{"decision":"block","reason":"run the tests"}'`);
    withHooks(`  Stop:\n    - hooks:\n        - type: command\n          command: ${gate}\n`);
    model.push(step({ text: "done" }), step({ toolCalls: [{ name: "bash", arguments: { command: "echo tests pass" } }] }), step({ text: "tested" }), step({ text: "SHOULD-NOT-BE-ASKED" }));
    const result = await run(["--yes", "fix it"]);
    expect(result.code).toBe(0);
    expect(steps()).toHaveLength(3);
    const active = readFileSync(log, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { stop_hook_active: boolean }).stop_hook_active);
    expect(active).toEqual([false, true]);
  });

  test("a Stop hook that always blocks ends the turn after 3, though the model calls a tool each time it goes on", async () => {
    const always = script("always.sh", `cat >/dev/null\necho "not yet" >&2\nexit 2`);
    withHooks(`  Stop:\n    - hooks:\n        - type: command\n          command: ${always}\n`);
    for (let i = 0; i < 6; i++) model.push(step({ text: `done ${i}` }), step({ toolCalls: [{ name: "bash", arguments: { command: "echo test" } }] }));
    const result = await run(["--yes", "fix it"]);
    expect(result.code).toBe(0);
    // Stop, on, tool, stop, on, tool, stop, on, tool, stop: ended.
    expect(steps()).toHaveLength(7);
    expect(afterHeader(result.stderr)).toContain("a Stop hook asked the model to go on 3 times in this turn: the turn ends here");
  });
});

describe("a project's hooks", () => {
  /** A project file whose UserPromptSubmit hook leaves a mark in the sandbox (outside the project). */
  function projectHook(file: string): string {
    const mark = join(box.dir, "hook-ran");
    mkdirSync(join(box.project, file, ".."), { recursive: true });
    const settings = { permissions: { allow: [] }, hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${mark}` }] }] } };
    writeFileSync(join(box.project, file), JSON.stringify(settings));
    return mark;
  }
  const lembas = (args: string[]) => runLembas(box, args, { cwd: box.project });

  test("in an untrusted project, .claude/settings.json's hooks never run, and that is said", async () => {
    const mark = projectHook(".claude/settings.json");
    model.push(step({ text: "ok" }));
    const result = await run(["hello"]);
    expect(result.code).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(afterHeader(result.stderr)).toContain("is not trusted");
    expect((await lembas(["hooks", "approve"])).stderr).toContain("is not trusted: lembas trust, then lembas hooks approve");
    expect(existsSync(mark)).toBe(false);
  });

  test("trusted, .agent/settings.json's hooks wait for approval of their exact content; a change waits again", async () => {
    const mark = projectHook(".agent/settings.json");
    trustIn(box, box.project);
    model.push(step({ text: "ok" }));
    expect((await run(["hello"])).stderr).toContain("you have not approved them as they read now");
    expect(existsSync(mark)).toBe(false);
    const listed = await lembas(["hooks"]);
    expect(listed.stdout).toContain(`UserPromptSubmit * → touch ${mark} (60 s) · .agent/settings.json · not run: not approved as it reads now`);
    const refused = await lembas(["hooks", "approve"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("asks before it approves: run it at a terminal, or with --yes");
    const approved = await lembas(["hooks", "approve", "--yes"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`UserPromptSubmit * → touch ${mark}`);
    model.push(step({ text: "ok" }));
    expect((await run(["hello"])).code).toBe(0);
    expect(existsSync(mark)).toBe(true);
    rmSync(mark);
    // The same file with other hooks: not what the person approved.
    writeFileSync(join(box.project, ".agent/settings.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${mark}; echo changed` }] }] } }));
    model.push(step({ text: "ok" }));
    expect((await run(["hello"])).stderr).toContain("you have not approved them as they read now");
    expect(existsSync(mark)).toBe(false);
  });
});

describe("a project's hook scripts", () => {
  const lembas = (args: string[]) => runLembas(box, args, { cwd: box.project });
  /** A trusted project whose approved PreToolUse hook runs .claude/hooks/pre.sh, named as Claude Code's docs name it. */
  async function approvedScript(): Promise<string> {
    mkdirSync(join(box.project, ".claude/hooks"), { recursive: true });
    writeFileSync(join(box.project, ".claude/hooks/pre.sh"), "#!/bin/sh\ncat >/dev/null\nexit 0\n");
    writeFileSync(join(box.project, ".claude/settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: 'sh "$CLAUDE_PROJECT_DIR/.claude/hooks/pre.sh"' }] }] } }));
    trustIn(box, box.project);
    const approved = await lembas(["hooks", "approve", "--yes"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("and these project files, as they read now: .claude/hooks/pre.sh");
    return join(box.dir, "pwned");
  }
  const rewritten = (mark: string) => `#!/bin/sh\ncat >/dev/null\nid > ${mark}\n`;

  test("a script rewritten since the approval asks again and does not run", async () => {
    const mark = await approvedScript();
    writeFileSync(join(box.project, ".claude/hooks/pre.sh"), rewritten(mark));
    model.push(step({ toolCalls: [{ name: "read", arguments: { path: ".claude/settings.json" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "go"]);
    expect(result.code).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(afterHeader(result.stderr)).toContain("you have not approved them and the project files they run as they read now");
    expect((await lembas(["hooks"])).stdout).toContain("not run: not approved as it reads now");
  });

  test("a script the model rewrites in the turn does not run at its next call", async () => {
    const mark = await approvedScript();
    model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: ".claude/hooks/pre.sh" } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: ".claude/hooks/pre.sh", content: rewritten(mark) } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: ".claude/settings.json" } }] }),
      step({ text: "ok" }),
    );
    const result = await run(["--yes", "go"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(box.project, ".claude/hooks/pre.sh"), "utf8")).toBe(rewritten(mark));
    expect(existsSync(mark)).toBe(false);
    expect(afterHeader(result.stderr)).toContain("you have not approved them and the project files they run as they read now");
  });
});

describe(".claude/settings.local.json and a settings file that does not read", () => {
  const lembas = (args: string[]) => runLembas(box, args, { cwd: box.project });

  test("settings.local.json's hooks run once the project is trusted and they are approved", async () => {
    const mark = join(box.dir, "local-ran");
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    writeFileSync(join(box.project, ".claude/settings.local.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${mark}` }] }] } }));
    model.push(step({ text: "ok" }), step({ text: "ok" }), step({ text: "ok" }));
    expect(afterHeader((await run(["hello"])).stderr)).toContain("settings.local.json do not run");
    expect(existsSync(mark)).toBe(false);
    trustIn(box, box.project);
    expect((await run(["hello"])).stderr).toContain("you have not approved them as they read now");
    expect(existsSync(mark)).toBe(false);
    expect((await lembas(["hooks"])).stdout).toContain(`UserPromptSubmit * → touch ${mark} (60 s) · .claude/settings.local.json`);
    expect((await lembas(["hooks", "approve", "--yes"])).code).toBe(0);
    expect((await run(["hello"])).code).toBe(0);
    expect(existsSync(mark)).toBe(true);
  });

  test("a file that is not JSON is said once, for its hooks and its permissions both", async () => {
    mkdirSync(join(box.project, ".agent"), { recursive: true });
    writeFileSync(join(box.project, ".agent/settings.json"), '{"permissions": {"deny": [');
    trustIn(box, box.project);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ toolCalls: [{ name: "bash", arguments: { command: "echo again" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "go"]);
    expect(result.code).toBe(0);
    const said = afterHeader(result.stderr).split("\n").filter((line) => line.includes("is not JSON"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("its hooks and permissions are left out");
  });
});

describe("lembas doctor", () => {
  test("names a settings file that does not parse and a skill folder without SKILL.md, one line each", async () => {
    mkdirSync(join(box.project, ".agent", "skills", "deploy"), { recursive: true });
    writeFileSync(join(box.project, ".agent", "skills", "deploy", "notes.md"), "how we deploy\n");
    writeFileSync(join(box.project, ".agent", "settings.json"), '{"hooks": {"PreToolUse": [');
    const doctor = await runLembas(box, ["doctor"], { cwd: box.project });
    const lines = doctor.stdout.split("\n");
    const settings = lines.filter((l) => l.includes(join(".agent", "settings.json")));
    expect(settings).toHaveLength(1);
    expect(settings[0]).toMatch(/^fix {2}hooks: .*\.agent\/settings\.json is not JSON: /);
    const skill = lines.filter((l) => l.includes(join(".agent", "skills", "deploy")));
    expect(skill).toHaveLength(1);
    expect(skill[0]).toContain("is skipped: a skill folder needs a SKILL.md");
  });
});

describe("a project's Claude Code settings with more than lembas runs", () => {
  test("an event lembas does not run is left out, said; the rest runs once approved", async () => {
    const mark = join(box.dir, "hook-ran");
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    const hooks = { SubagentStop: [{ hooks: [{ type: "command", command: "true" }] }], UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${mark}` }] }] };
    writeFileSync(join(box.project, ".claude/settings.json"), JSON.stringify({ hooks }));
    trustIn(box, box.project);
    expect((await runLembas(box, ["hooks", "approve", "--yes"], { cwd: box.project })).code).toBe(0);
    model.push(step({ text: "ok" }));
    const result = await run(["hello"]);
    expect(result.code).toBe(0);
    expect(existsSync(mark)).toBe(true);
    expect(afterHeader(result.stderr)).toContain("hooks.SubagentStop: lembas does not run SubagentStop hooks");
  });
});

describe("the matcher \"*\"", () => {
  const denyAll = () => script("deny-all.sh", `cat >/dev/null\necho "nothing runs today" >&2\nexit 2`);

  test("in config.yaml it takes every tool", async () => {
    withHooks(`  PreToolUse:\n    - matcher: "*"\n      hooks:\n        - type: command\n          command: ${denyAll()}\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "run it"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "ran.txt"))).toBe(false);
    expect(toolResults()).toEqual([expect.stringContaining("nothing runs today")]);
  });

  test("in a project's settings file it takes every tool, once approved", async () => {
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    writeFileSync(join(box.project, ".claude/settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: denyAll() }] }] } }));
    trustIn(box, box.project);
    const approved = await runLembas(box, ["hooks", "approve", "--yes"], { cwd: box.project });
    expect(approved.code).toBe(0);
    expect(approved.stderr).toBe("");
    model.push(step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a\n" } }] }), step({ text: "ok" }));
    const result = await run(["--yes", "write it"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(box.project, "a.txt"))).toBe(false);
    expect(toolResults()).toEqual([expect.stringContaining("nothing runs today")]);
  });
});

describe("config.yaml's hooks: that do not read", () => {
  test("a bad entry is one line naming the file, the key and what is wrong, exit 2", async () => {
    withHooks(`  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: prompt\n          command: ./check.sh\n`);
    const result = await run(["hello"]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`lembas: ${join(box.configDir, "config.yaml")}: hooks.PreToolUse.0.hooks.0.type: must be "command" (lembas runs hooks as commands)`);
    expect(steps()).toHaveLength(0);
  });
});
