import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";

let box: Sandbox;
let model: ScriptedModel;
let project: string;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  project = join(box.dir, "project");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

test("/undo of a command that made directories removes them once empty, and names them", async () => {
  const before = readdirSync(project).sort();
  model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "mkdir -p build/out && echo x > build/out/f.txt" } }] }), step({ text: "built" }));
  const first = await runLembas(box, ["run", "--yes", "build it"], { cwd: project });
  expect(first.code).toBe(0);
  expect(existsSync(join(project, "build/out/f.txt"))).toBe(true);
  const undo = await runLembas(box, ["run", "-c", "/undo"], { cwd: project });
  expect(undo.code).toBe(0);
  expect(undo.stderr).toContain("lembas: undid the last turn (1 file restored; removed the empty directories build/out, build): “build it”\n");
  expect(readdirSync(project).sort()).toEqual(before);
});
