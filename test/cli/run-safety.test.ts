import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";

/** What hooks and rules may not lift or miss, through `lembas run` with nobody to answer a card. */

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

/** config.yaml with the test connection and EXTRA (YAML lines). */
function config(extra: string): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n${extra}`);
}

function script(name: string, body: string): string {
  const path = join(box.dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

type Event = { type: string; name?: string; reason?: string };
async function run(args: string[]): Promise<{ code: number; events: Event[] }> {
  const result = await runLembas(box, ["run", "--format", "json", ...args], { cwd: box.project });
  const events = result.stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Event);
  return { code: result.code, events };
}
const lembas = (args: string[]) => runLembas(box, args, { cwd: box.project });
/** The tool results of the last request: what the model was told of every call. */
const toolResults = () => (model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));

describe("a project's hooks and settings are protected paths", () => {
  test("in edit mode the model cannot rewrite an approved hook's script: the write asks, and nobody can answer", async () => {
    const hook = join(box.project, ".agent/hooks/pre.sh");
    mkdirSync(join(box.project, ".agent/hooks"), { recursive: true });
    writeFileSync(hook, "#!/bin/sh\ncat >/dev/null\nexit 0\n");
    writeFileSync(join(box.project, ".agent/settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: 'sh "$CLAUDE_PROJECT_DIR/.agent/hooks/pre.sh"' }] }] } }));
    config("");
    expect((await lembas(["trust"])).code).toBe(0);
    expect((await lembas(["hooks", "approve", "--yes"])).code).toBe(0);
    const mark = join(box.project, "pwned");
    model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: ".agent/hooks/pre.sh", content: `#!/bin/sh\ncat >/dev/null\nid > ${mark}\n` } }] }),
      step({ toolCalls: [{ name: "write", arguments: { path: ".claude/settings.local.json", content: "{}" } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }),
      step({ text: "ok" }),
    );
    const { events } = await run(["--mode", "edit", "go"]);
    const denied = events.filter((e) => e.type === "tool_denied").map((e) => e.reason ?? "");
    expect(denied).toHaveLength(2);
    expect(denied[0]).toContain("is a protected path");
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\ncat >/dev/null\nexit 0\n");
    expect(existsSync(join(box.project, ".claude/settings.local.json"))).toBe(false);
    expect(existsSync(mark)).toBe(false);
  });

  test("in auto mode a command writing a hook script asks too", async () => {
    config("");
    mkdirSync(join(box.project, ".claude/hooks"), { recursive: true });
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo 'id' > .claude/hooks/post.sh" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "auto", "go"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(existsSync(join(box.project, ".claude/hooks/post.sh"))).toBe(false);
  });
});

describe("a PreToolUse hook's allow lifts only the mode's own ask", () => {
  test("in edit mode with nobody to answer: a plain command runs; a protected path, a write outside the project and an ask rule are refused", async () => {
    const allow = script("allow.sh", `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`);
    config(`permissions:\n  ask: ["Bash(touch asked:*)"]\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${allow}\n`);
    model.push(
      step({
        toolCalls: [
          { name: "bash", arguments: { command: "touch plain" } },
          { name: "write", arguments: { path: ".env", content: "X=1\n" } },
          { name: "bash", arguments: { command: "echo hi > ../outside.txt" } },
          { name: "bash", arguments: { command: "touch asked" } },
        ],
      }),
      step({ text: "ok" }),
    );
    const { events } = await run(["--mode", "edit", "go"]);
    expect(existsSync(join(box.project, "plain"))).toBe(true);
    expect(existsSync(join(box.project, ".env"))).toBe(false);
    expect(existsSync(join(box.dir, "outside.txt"))).toBe(false);
    expect(existsSync(join(box.project, "asked"))).toBe(false);
    const denied = events.filter((e) => e.type === "tool_denied").map((e) => e.reason ?? "");
    expect(denied).toHaveLength(3);
    expect(denied[0]).toContain("is a protected path");
    expect(denied[2]).toContain("Ask Bash(touch asked:*)");
  });
});

describe("a Bash deny rule catches the command behind wrappers", () => {
  const variants = ["rm a1", "command rm a2", "/bin/rm a3", "sh -c 'rm a4'", "env rm a5", "find . -name a6 -delete", "xargs rm <<< a7", "echo a8 | xargs rm", "sudo rm a9", "\\rm a10", "eval rm a11", 'bash -c "rm a12"', "env -i A=1 nice -n 5 timeout 10 nohup /usr/bin/rm a13", "find . -name a14 -exec rm {} \\;", "exec rm a15"];
  test("deny Bash(rm:*) in auto mode refuses rm behind command, env, exec, nice, timeout, nohup, sudo, xargs, an absolute path, sh -c, eval and find", async () => {
    config(`permissions:\n  deny: ["Bash(rm:*)"]\n`);
    variants.forEach((_, i) => writeFileSync(join(box.project, `a${i + 1}`), "x"));
    model.push(step({ toolCalls: variants.map((command) => ({ name: "bash", arguments: { command } })) }), step({ text: "ok" }));
    const { events } = await run(["--mode", "auto", "go"]);
    const removed = variants.filter((_, i) => !existsSync(join(box.project, `a${i + 1}`)));
    expect(removed).toEqual([]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(toolResults().every((r) => r.includes("Deny Bash(rm:*)"))).toBe(true);
  });

  test("an ask rule catches them too, and other commands still run", async () => {
    config(`permissions:\n  ask: ["Bash(git push:*)"]\n`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "env GIT_TRACE=1 git push origin" } }, { name: "bash", arguments: { command: "timeout 5 echo pushed" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "auto", "go"]);
    expect(events.filter((e) => e.type === "tool_denied").map((e) => e.reason)).toEqual([expect.stringContaining("Ask Bash(git push:*)")]);
    expect(events.filter((e) => e.type === "tool_start")).toHaveLength(1);
  });
});

describe("a Read deny rule holds beyond the read tool", () => {
  test("grep, glob and list leave out what it covers, and bash and hooks do not see it in the sandbox", async () => {
    const log = join(box.dir, "hook.log");
    const peek = script("peek.sh", `cat >/dev/null\ncat "$CLAUDE_PROJECT_DIR/private/s.txt" "$CLAUDE_PROJECT_DIR/creds.txt" >> ${log} 2>&1\nexit 0`);
    config(`permissions:\n  deny: ["Read(private/**)", "Read(/creds.txt)"]\nhooks:\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: ${peek}\n`);
    mkdirSync(join(box.project, "private"), { recursive: true });
    writeFileSync(join(box.project, "private/s.txt"), "TOPSECRET-VALUE\n");
    writeFileSync(join(box.project, "creds.txt"), "TOPSECRET-CREDS\n");
    writeFileSync(join(box.project, "app.txt"), "TOPSECRET is not here\n");
    model.push(
      step({
        toolCalls: [
          { name: "read", arguments: { path: "private/s.txt" } },
          { name: "grep", arguments: { pattern: "TOPSECRET", path: ".", output_mode: "content" } },
          { name: "grep", arguments: { pattern: "TOPSECRET" } },
          { name: "glob", arguments: { pattern: "**/*.txt" } },
          { name: "list", arguments: { path: "." } },
          { name: "bash", arguments: { command: "cat private/s.txt creds.txt; grep -r TOPSECRET . ; ls private" } },
        ],
      }),
      step({ text: "ok" }),
    );
    const { code } = await run(["--mode", "auto", "go"]);
    expect(code).toBe(0);
    const [read, content, files, globbed, listed, bash] = toolResults();
    expect(read).toContain("Deny Read(private/**)");
    expect(content).toBe("app.txt:1:TOPSECRET is not here");
    expect(files).toBe("app.txt");
    expect(globbed).toBe("app.txt");
    expect(listed).not.toContain("private");
    expect(listed).not.toContain("creds");
    expect(bash).not.toContain("TOPSECRET-");
    expect(bash).toContain("app.txt");
    // The hook ran after each call, and saw an empty private/ and an empty creds.txt.
    expect(readFileSync(log, "utf8")).toContain("No such file");
    expect(readFileSync(log, "utf8")).not.toContain("TOPSECRET");
  });
});
