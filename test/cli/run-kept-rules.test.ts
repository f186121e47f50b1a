import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPty, type Pty } from "../../src/terminal/pty.ts";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { screenOf } from "../support/pty-screen.ts";
import { LEMBAS, modelProjectEach, type ProjectSandbox, runInProject, runLembas } from "../support/run.ts";

/**
 * Rules kept from a card beyond the session, through `lembas run` at a terminal (the card) and
 * then without one (where nobody could answer a card: a call that runs was not asked).
 */

let box: ProjectSandbox;
let model: ScriptedModel;
let pty: Pty | null = null;
afterEach(() => {
  pty?.close();
  pty = null;
});
modelProjectEach((made) => ({ box, model } = made));

function runInTerminal(args: string[]) {
  pty = openPty({ command: [...LEMBAS, "run", ...args], cwd: box.project, env: box.env, cols: 240, rows: 50 });
  return screenOf(pty);
}

/** A run without a terminal: every card is refused (nobody to answer); the kinds of events it printed. */
async function runUnasked(prompt: string): Promise<{ started: number; denied: string[] }> {
  const result = await runInProject(box, ["--format", "json", prompt]);
  expect(result.code).toBe(0);
  const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; reason?: string });
  return { started: events.filter((e) => e.type === "tool_start").length, denied: events.filter((e) => e.type === "tool_denied").map((e) => e.reason ?? "") };
}

async function keepAtCard(command: string, answer: string): Promise<string> {
  model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "ok" }));
  const t = runInTerminal(["do it"]);
  await t.waitFor("allow?");
  const card = t.screen();
  t.type(`${answer}\r`);
  expect(await t.exited).toBe(0);
  return card;
}

describe("a rule kept from a card", () => {
  test("kept for the project is answered once and not asked again in a new session; lembas permissions lists and revokes it", async () => {
    const card = await keepAtCard("touch one.txt", "p");
    expect(card).toContain("keep it as Bash(touch:*): [p] for this project / [e] everywhere");
    expect(existsSync(join(box.project, "one.txt"))).toBe(true);

    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch two.txt" } }] }), step({ text: "ok" }));
    expect(await runUnasked("again")).toEqual({ started: 1, denied: [] });
    expect(existsSync(join(box.project, "two.txt"))).toBe(true);

    const listed = await runLembas(box, ["permissions", "list"], { cwd: box.project });
    const line = listed.stdout.split("\n").find((l) => l.includes("Bash(touch:*)")) ?? "";
    expect(line).toMatch(new RegExp(`^allow  Bash\\(touch:\\*\\)  in ${box.project}, kept from a card .* UTC \\((rule_[0-9a-f]+)\\) · never expires$`));
    const id = /\((rule_[0-9a-f]+)\)/.exec(line)?.[1] ?? "";
    expect((await runLembas(box, ["permissions", "revoke", id])).stdout).toBe(`revoked ${id}\n`);

    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch three.txt" } }] }), step({ text: "ok" }));
    expect(await runUnasked("once more")).toEqual({ started: 0, denied: ["edit mode asks before running commands"] });
  }, 60_000);

  test("an expired rule asks again", async () => {
    await keepAtCard("touch one.txt", "ed");
    const db = new Database(join(box.stateDir, "lembas.db"));
    db.query("UPDATE kept_rules SET expires_at = ?").run(Date.now() - 1000);
    db.close();
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch two.txt" } }] }), step({ text: "ok" }));
    expect(await runUnasked("again")).toEqual({ started: 0, denied: ["edit mode asks before running commands"] });
    const listed = await runLembas(box, ["permissions"], { cwd: box.project });
    expect(listed.stdout).toMatch(/^allow {2}Bash\(touch:\*\) {2}everywhere, kept from a card .* · expired .* UTC$/m);
  }, 60_000);

  test("a kept deny refuses the next session's call, even in auto mode", async () => {
    await keepAtCard("touch one.txt", "np");
    expect(existsSync(join(box.project, "one.txt"))).toBe(false);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch two.txt" } }] }), step({ text: "ok" }));
    const result = await runInProject(box, ["--mode", "auto", "--format", "json", "again"]);
    expect(result.stdout).toContain('"reason":"the rule Deny Bash(touch:*) (kept from a card, for this project) refuses it"');
    expect(existsSync(join(box.project, "two.txt"))).toBe(false);
  }, 60_000);

  test("a deny rule beats a session allow", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\npermissions:\n  deny: [Bash(touch secret.txt)]\n`);
    model.push(
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch one.txt" } }] }),
      step({ toolCalls: [{ name: "bash", arguments: { command: "touch secret.txt" } }] }),
      step({ text: "ok" }),
    );
    const t = runInTerminal(["do it"]);
    await t.waitFor("allow?");
    t.type("a\r");
    expect(await t.exited).toBe(0);
    expect(existsSync(join(box.project, "one.txt"))).toBe(true);
    expect(existsSync(join(box.project, "secret.txt"))).toBe(false);
    expect(t.screen()).toContain("the rule Deny Bash(touch secret.txt) (config.yaml) refuses it");
  }, 60_000);

  test("revoke answers where to edit a rule written in config.yaml or a project's file, and that an unknown id is none", async () => {
    writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\npermissions:\n  deny: [Bash(touch secret.txt)]\n`);
    mkdirSync(join(box.project, ".claude"), { recursive: true });
    writeFileSync(join(box.project, ".claude", "settings.local.json"), JSON.stringify({ permissions: { ask: ["Bash(rm:*)"] } }));
    const fromConfig = await runLembas(box, ["permissions", "revoke", "Bash(touch secret.txt)"], { cwd: box.project });
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toContain("Bash(touch secret.txt) is written in config.yaml (permissions.deny): edit it there");
    const fromProject = await runLembas(box, ["permissions", "revoke", "Bash(rm:*)"], { cwd: box.project });
    expect(fromProject.stderr).toContain(`Bash(rm:*) is written in ${join(box.project, ".claude", "settings.local.json")} (permissions.ask): edit it there`);
    const unknown = await runLembas(box, ["permissions", "revoke", "rule_00000000"], { cwd: box.project });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("there is no kept rule rule_00000000");
  }, 60_000);
});
