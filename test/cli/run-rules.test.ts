import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { helperStep, isStep, ownStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";

/** Permission rules (config.yaml's `permissions:`, a project's settings files) through `lembas run` and a scripted model. */

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

/** config.yaml with the test connection and PERMISSIONS (YAML lines under `permissions:`). */
function withRules(permissions: string): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\npermissions:\n${permissions}`);
}

type Event = { type: string; name?: string; reason?: string; message?: string };
async function run(args: string[]): Promise<{ code: number; events: Event[]; stderr: string }> {
  const result = await runLembas(box, ["run", "--format", "json", ...args], { cwd: box.project });
  const events = result.stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Event);
  return { code: result.code, events, stderr: result.stderr };
}
/** The tool results of the last request: what the model was told of every call. */
const toolResults = () => (model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));

describe("config.yaml's rules", () => {
  test("Bash(git status:*) lets git status -s run without a card in edit mode", async () => {
    withRules("  allow: [Bash(git status:*)]\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "git status -s" } }] }), step({ text: "ok" }));
    const { code, events } = await run(["--mode", "edit", "look"]);
    expect(code).toBe(0);
    expect(events.filter((e) => e.type === "tool_denied")).toEqual([]);
    expect(events.filter((e) => e.type === "tool_start").map((e) => e.name)).toEqual(["bash"]);
  });

  test("it covers that command only: another asks, and nobody can answer a run without --yes", async () => {
    withRules("  allow: [Bash(git status:*)]\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "git status -s && touch x" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "edit", "look"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(events.filter((e) => e.type === "tool_denied")).toHaveLength(1);
  });

  test("an allow rule does not lift plan mode", async () => {
    withRules("  allow: [Bash(git status:*)]\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "git status -s" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "plan", "look"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(events.find((e) => e.type === "tool_denied")?.reason).toStartWith("plan mode does not allow running commands");
  });

  test("an allow rule never lets through a command that \"always\" is never offered for (it writes outside the project)", async () => {
    withRules("  allow: [Bash(echo:*)]\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi > ../outside.txt" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "edit", "look"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
  });

  test("a deny rule refuses even in auto mode, and the model reads which rule", async () => {
    withRules("  deny: [Bash(git push:*), Read(~/.ssh/**)]\n");
    mkdirSync(join(box.env.HOME as string, ".ssh"), { recursive: true });
    writeFileSync(join(box.env.HOME as string, ".ssh", "id_rsa"), "secret\n");
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "git push origin main" } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: join(box.env.HOME as string, ".ssh", "id_rsa") } }] }),
      step({ text: "ok" }),
    );
    const { events } = await run(["--mode", "auto", "--yes", "ship it"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(toolResults()).toEqual([
      "Refused: the rule Deny Bash(git push:*) (config.yaml) refuses it.",
      "Refused: the rule Deny Read(~/.ssh/**) (config.yaml) refuses it.",
    ]);
  });

  test("an ask rule asks even in auto mode", async () => {
    withRules("  ask: [Bash(npm publish:*)]\n");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "npm publish" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "auto", "ship it"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(events.find((e) => e.type === "tool_denied")?.reason).toBe("the rule Ask Bash(npm publish:*) (config.yaml) asks first");
  });
});

describe("a task's helper", () => {
  test("is held to the deny rules too", async () => {
    withRules("  deny: [Read(secret.txt)]\n");
    writeFileSync(join(box.project, "secret.txt"), "the-secret-value\n");
    model.push(
      ownStep({ toolCalls: [{ name: "task", arguments: { description: "look", prompt: "What is in secret.txt?" } }] }),
      helperStep({ toolCalls: [{ name: "read", arguments: { path: "secret.txt" } }] }),
      helperStep({ text: "refused" }),
      ownStep({ text: "ok" }),
    );
    const { code } = await run(["--mode", "edit", "look"]);
    expect(code).toBe(0);
    const sent = JSON.stringify(model.requests.map((r) => r.body));
    expect(sent).not.toContain("the-secret-value");
    expect(sent).toContain("the rule Deny Read(secret.txt) (config.yaml) refuses it");
  });
});

describe("a project's settings files", () => {
  test("may deny; an allow there is ignored, with a notice", async () => {
    withRules("  allow: []\n");
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    writeFileSync(join(box.project, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(touch:*)"], deny: ["Bash(rm:*)"] } }));
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "rm -f made.txt" } }] }),
      step({ text: "ok" }),
    );
    const { events } = await run(["--mode", "edit", "tidy"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(events.filter((e) => e.type === "tool_denied").map((e) => e.reason)).toEqual([
      "edit mode asks before running commands",
      "the rule Deny Bash(rm:*) (.claude/settings.json) refuses it",
    ]);
    expect(events.filter((e) => e.type === "notice").map((e) => e.message)).toContain(
      ".claude/settings.json: permissions.allow (Bash(touch:*)) is ignored: a project's files may only restrict (ask, deny); allow in config.yaml or from a card",
    );
  });
  test("Claude Code's .claude/settings.local.json (the person's own) is read too: its deny refuses, its allow is ignored", async () => {
    withRules("  allow: []\n");
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    writeFileSync(join(box.project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { allow: ["Bash(rm:*)"], deny: ["Bash(touch:*)"] } }));
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    const { events } = await run(["--mode", "auto", "tidy"]);
    expect(events.filter((e) => e.type === "tool_start")).toEqual([]);
    expect(events.filter((e) => e.type === "tool_denied").map((e) => e.reason)).toEqual(["the rule Deny Bash(touch:*) (.claude/settings.local.json) refuses it"]);
    expect(existsSync(join(box.project, "made.txt"))).toBe(false);
    expect(events.filter((e) => e.type === "notice").map((e) => e.message)).toContain(
      ".claude/settings.local.json: permissions.allow (Bash(rm:*)) is ignored: a project's files may only restrict (ask, deny); allow in config.yaml or from a card",
    );
  });
});
