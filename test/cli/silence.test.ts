import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { afterHeader, projectSandbox, runLembas } from "../support/run.ts";

let model: ScriptedModel | null = null;
let cleanup: (() => void) | null = null;
afterEach(async () => {
  await model?.close();
  cleanup?.();
});

test("lembas run against a server that goes silent ends after the idle timeout: a notice of the retry, then one line and exit 1", async () => {
  // "hang": headers and a comment, then nothing until the client gives up (test/support/model.ts).
  model = await startModel({ replies: [step({ fail: "hang", failTimes: 5, text: "never" })] });
  const box = projectSandbox(model.url);
  cleanup = box.cleanup;
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${model.url}\n    idle_timeout: 0.3\n`);
  // The server stays silent for good: a run not given up at the idle timeout is killed at 15 s, without these lines.
  const result = await runLembas(box, ["run", "hello"], { cwd: box.project, timeoutMs: 15_000 });
  const lines = afterHeader(result.stderr).trim().split("\n");
  const sentence = `the model server at ${model.url} went silent for 0.3 s before its reply began; raise idle_timeout (seconds) of connection "test" in config.yaml if it needs longer`;
  expect(result.code).toBe(1);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(new RegExp(`^lembas: .*went silent for 0\\.3 s before its reply began; .*; trying again in [\\d.]+ s \\(retry 1 of 1\\)$`));
  expect(lines[1]).toBe(`lembas: ${sentence} (tried 2 times)`);
  expect(result.stdout).toBe("");
}, 30_000);
