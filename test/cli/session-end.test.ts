/**
 * A SessionEnd hook never holds lembas up: it runs for a short bound (session-end.ts), whatever its
 * own timeout, and a stop once the answer is out stops it at once. Before, `lembas run` waited for
 * the hook's whole limit after its answer and took the first Ctrl-C for the turn that had ended;
 * `serve --stdio` whose editor closed its stdin waited as long.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { killSleeps, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { LEMBAS, type ProjectSandbox, projectSandbox, runInProject } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
let marker: string;
let started: Bun.Subprocess | null = null;
let editor: StdioAgent | null = null;

beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  marker = uniqueSleep();
});
afterEach(async () => {
  started?.kill("SIGKILL");
  started = null;
  await editor?.close();
  editor = null;
  killSleeps(marker);
  await model.close();
  box.cleanup();
});

/** config.yaml's lines for a SessionEnd hook that says it began (a file in the project), then sleeps far past any bound; its limit is 120 s. */
function sessionEndHook(): string {
  const hook = `echo began > "$LEMBAS_PROJECT_DIR/hook-began"; sleep ${marker}`;
  return `hooks:\n  SessionEnd:\n    - hooks:\n        - type: command\n          command: '${hook}'\n          timeout: 120\n`;
}

function withHook(): void {
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n${sessionEndHook()}`);
}

const began = () => existsSync(join(box.project, "hook-began"));

describe("lembas run", () => {
  test("a SessionEnd hook that sleeps past its bound: the run ends after its answer all the same (not at the hook's 120 s), the hook's processes gone", async () => {
    withHook();
    model.push(step({ text: "finished" }));
    const result = await runInProject(box, ["--yes", "go"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("finished");
    expect(began()).toBe(true);
    expect(await waitUntil(() => sleepsWith(marker).length === 0)).toBe(true);
  });

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    test(`once the answer is out, the first ${signal} ends the run at once with 130 and stops the SessionEnd hook (its bound made longer than the test)`, async () => {
      withHook();
      model.push(step({ text: "finished" }));
      const proc = Bun.spawn([...LEMBAS, "run", "--yes", "--format", "json", "go"], {
        cwd: box.project,
        env: { ...box.env, LEMBAS_TEST_SESSION_END_MS: "120000" },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      started = proc;
      const stdout = new Response(proc.stdout).text();
      expect(await waitUntil(() => began() && sleepsWith(marker).length > 0, 20_000)).toBe(true);
      proc.kill(signal);
      // The answer stands (its result line written), and the run says it was stopped: 130, as any Ctrl-C.
      expect(await proc.exited).toBe(130);
      const last = JSON.parse((await stdout).trim().split("\n").at(-1) ?? "{}");
      expect(last.cancelled).toBeFalsy();
      expect(last.error).toBeFalsy();
      expect(await waitUntil(() => sleepsWith(marker).length === 0)).toBe(true);
    }, 30_000);
  }
});

describe("serve --stdio", () => {
  test("the editor closes stdin: the process exits within the SessionEnd bound (not the hook's 120 s), the hook's processes gone", async () => {
    editor = await startStdioAgent({ model, config: `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n${sessionEndHook()}` });
    const agent = editor;
    agent.model.push(step({ text: "hello" }));
    await agent.agent.request("initialize", initializeParams);
    const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
    await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    agent.proc.stdin.end();
    expect(await agent.proc.exited).toBe(0);
    expect(existsSync(join(agent.project, "hook-began"))).toBe(true);
    expect(await waitUntil(() => sleepsWith(marker).length === 0)).toBe(true);
  }, 30_000);
});
