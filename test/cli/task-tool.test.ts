import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { helperStep, ownStep } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { afterHeader, projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

test("lembas run shows a task's helper calls indented under the task's line, a failed one marked", async () => {
  writeFileSync(join(box.project, "a.txt"), "one\nneedle\n");
  model.push(
    ownStep({ toolCalls: [{ name: "task", arguments: { description: "find the needle", prompt: "Where is needle?" } }] }),
    helperStep({ toolCalls: [{ name: "grep", arguments: { pattern: "needle" } }] }),
    helperStep({ toolCalls: [{ name: "read", arguments: { path: "gone.txt" } }, { name: "read", arguments: { path: "a.txt" } }] }),
    helperStep({ text: "a.txt:2" }),
    ownStep({ text: "In a.txt." }),
  );
  const result = await runLembas(box, ["run", "where is needle?"], { cwd: box.project, env: { NO_COLOR: "1" } });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("In a.txt.\n");
  expect(afterHeader(result.stderr)).toStartWith('› Task: find the needle\n  › Search for "needle"\n  › Read gone.txt\n  ✗ Read gone.txt\n  › Read a.txt\n');
});
