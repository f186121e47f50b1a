/**
 * `lembas run` writes its answer through Bun's own sink (cli/plain-out.ts), not process.stdout: an
 * answer larger than a pipe holds, read by a consumer that starts late, still arrives whole and in
 * order, and the run ends only once it has.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { LEMBAS, projectSandbox } from "../support/run.ts";

let model: ScriptedModel;
beforeAll(async () => {
  model = await startModel();
});
afterAll(() => model.close());

test("an answer of 400 KB through a pipe read late arrives whole, in order", async () => {
  const box = projectSandbox(model.url);
  try {
    const chunks = Array.from({ length: 4000 }, (_, i) => `${String(i).padStart(5, "0")} ${"x".repeat(94)}\n`);
    model.push(step({ text: chunks }));
    const proc = Bun.spawn([...LEMBAS, "run", "hi"], { cwd: box.project, env: box.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    // Nothing is read until the pipe has long been full: the run waits on it, and loses nothing.
    await Bun.sleep(1500);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr: stderr.includes("continue it") }).toEqual({ code: 0, stderr: true });
    expect(stdout.length).toBe(chunks.join("").length);
    expect(stdout).toBe(chunks.join(""));
  } finally {
    box.cleanup();
  }
});
