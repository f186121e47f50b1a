import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, isSummary, step } from "../support/engine.ts";
import { contentText, type ScriptedModel, startModel } from "../support/model.ts";
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

const run = (args: string[]) => runLembas(box, ["run", ...args], { cwd: project });

test("lembas run -c: a server's context overflow is compacted away and the answer comes", async () => {
  model.push(step({ text: "the first answer" }));
  expect((await run(["first question"])).code).toBe(0);
  // llama.cpp's wording (tools/server): the step is refused once, as a server whose window is full.
  const overflow = JSON.stringify({ error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error", n_prompt_tokens: 9000, n_ctx: 8192 } });
  model.push(step({ text: "the second answer", fail: { status: 400, body: overflow }, failTimes: 1 }), { match: isSummary, text: "SUMMARY: one question so far." });
  const result = await run(["-c", "second question"]);
  expect(result.stdout).toBe("the second answer\n");
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("the history was compacted");
  const retried = model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  const text = retried.map((m) => contentText(m.content)).join("\n");
  expect(text).toContain("SUMMARY: one question so far.");
  expect(text).toContain("second question");
});

test("an Ollama connection: its window is said to be the server's, and a prompt it cut without a word is said", async () => {
  // Known for Ollama as the dialect table knows it: its /v1/models says owned_by "library".
  model.setModels([{ id: "test-model", provider: "library" }]);
  writeFileSync(join(box.configDir, "config.yaml"), `model: local/test-model\nconnections:\n  local:\n    base_url: ${model.url}\n`);
  // Ollama cuts a prompt longer than its num_ctx and reports only what it read (2048 of about 10 000).
  model.push(step({ text: "the first answer", usage: { prompt_tokens: 2_048, completion_tokens: 3 } }));
  const first = await run([Array.from({ length: 4_000 }, (_, i) => `word${i}`).join(" ")]);
  expect(first.code).toBe(0);
  expect(first.stderr).toContain("is the one its Ollama server was started with (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile");
  expect(first.stderr).toContain("read only 2048 tokens of a request of about");
});
