import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { killSleeps, pathWithoutSandbox, sleepsWith, uniqueSleep, waitUntil } from "../support/procs.ts";
import { afterHeader, LEMBAS, modelProjectEach, type ProjectSandbox, runInProject } from "../support/run.ts";
import { bwrapSandbox } from "../support/tools.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

const bwrap = bwrapSandbox("the tests of a hook's processes in the sandbox when lembas run ends");

/** config.yaml whose PreToolUse hook is a script of BODY, with a time limit of SECONDS; the script's path. */
function hook(body: string, seconds = 60): string {
  const path = join(box.dir, "hook.sh");
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  writeFileSync(join(box.configDir, "config.yaml"), hookConfig(path, seconds));
  return path;
}

function hookConfig(path: string, seconds: number): string {
  return `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${path}\n          timeout: ${seconds}\n`;
}

/** `lembas run` started (not awaited) in the project, with ENV over the box's. */
function start(env: Record<string, string> = {}) {
  return Bun.spawn([...LEMBAS, "run", "--yes", "run it"], { cwd: box.project, env: { ...box.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
}

/** lembas run ended by SIGNAL once the hook's SLEEPS run; whether they are all gone then. */
async function endedMidHook(signal: NodeJS.Signals, sleeps: string[], env: Record<string, string> = {}): Promise<boolean> {
  model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran" } }] }), step({ text: "never" }));
  const proc = start(env);
  try {
    expect(await waitUntil(() => sleeps.every((marker) => sleepsWith(marker).length === 1), 15_000)).toBe(true);
    proc.kill(signal);
    await proc.exited;
    return await waitUntil(() => sleeps.every((marker) => sleepsWith(marker).length === 0), 15_000);
  } finally {
    proc.kill("SIGKILL");
    killSleeps(...sleeps);
  }
}

describe.skipIf(!bwrap)("a hook's processes in the sandbox when lembas run ends mid-hook", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"] as const) {
    test(`${signal}: neither the hook nor the daemon it forked is left running`, async () => {
      const [away, waited] = [uniqueSleep(), uniqueSleep()];
      hook(`cat >/dev/null\n(setsid sleep ${away} </dev/null >/dev/null 2>&1 &)\nsleep ${waited}`);
      expect(await endedMidHook(signal, [away, waited])).toBe(true);
    });
  }
});

describe.skipIf(!bwrap)("a hook's processes when the editor goes mid-hook", () => {
  test("the connection closed (end of stdin): serve --stdio ends, and neither the hook nor its daemon is left running", async () => {
    const [away, waited] = [uniqueSleep(), uniqueSleep()];
    const path = join(box.dir, "hook.sh");
    writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n(setsid sleep ${away} </dev/null >/dev/null 2>&1 &)\nsleep ${waited}\n`);
    chmodSync(path, 0o755);
    const agent = await startStdioAgent({ config: hookConfig(path, 60), model });
    try {
      // A call the editor is asked about, once the hook has let it through.
      model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }), step({ text: "never" }));
      await agent.agent.request("initialize", initializeParams);
      const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
      void agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }).catch(() => {});
      expect(await waitUntil(() => sleepsWith(away).length === 1 && sleepsWith(waited).length === 1, 15_000)).toBe(true);
      agent.proc.stdin.end();
      expect(await agent.proc.exited).toBe(0);
      expect(await waitUntil(() => sleepsWith(away).length === 0 && sleepsWith(waited).length === 0, 15_000)).toBe(true);
    } finally {
      killSleeps(away, waited);
      await agent.close();
    }
  });
});

describe("a hook that forks a daemon, where there is no sandbox", () => {
  test("one that left its group holding the hook's output: the hook ends, the call runs, and the daemon is stopped", async () => {
    const away = uniqueSleep();
    hook(`cat >/dev/null\nsetsid sleep ${away} &\necho '{}'`);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    try {
      const result = await runInProject(box, ["--yes", "run it"], { env: { PATH: pathWithoutSandbox(box.dir) } });
      expect(result.code).toBe(0);
      expect(await Bun.file(join(box.project, "ran.txt")).text()).toBe("ran\n");
      expect(await waitUntil(() => sleepsWith(away).length === 0)).toBe(true);
    } finally {
      killSleeps(away);
    }
  });

  test("one that cleared its environment and holds the hook's output: the hook is still stopped at its time limit", async () => {
    const away = uniqueSleep();
    const path = hook(`cat >/dev/null\nenv -i setsid sleep ${away} &\necho '{}'`, 1);
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo ran > ran.txt" } }] }), step({ text: "ok" }));
    try {
      const result = await runInProject(box, ["--yes", "run it"], { env: { PATH: pathWithoutSandbox(box.dir) } });
      expect(result.code).toBe(0);
      expect(afterHeader(result.stderr)).toContain(`the PreToolUse hook "${path}" (config.yaml) did not end within its time limit and was stopped`);
      expect(await Bun.file(join(box.project, "ran.txt")).text()).toBe("ran\n");
    } finally {
      killSleeps(away);
    }
  });

  test("SIGKILL of lembas run mid-hook: the daemon the hook forked out of its group is stopped too", async () => {
    const [away, waited] = [uniqueSleep(), uniqueSleep()];
    hook(`cat >/dev/null\n(setsid sleep ${away} </dev/null >/dev/null 2>&1 &)\nsleep ${waited}`);
    expect(await endedMidHook("SIGKILL", [away, waited], { PATH: pathWithoutSandbox(box.dir) })).toBe(true);
  });
});
