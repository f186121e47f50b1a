/**
 * A `lembas run` whose connection's model list is kept in the store (every run after the first)
 * makes its first model request without loading the code that lists a server's models
 * (model/discovery.ts, model/models.ts): it is loaded with the first listing asked for. A preloaded
 * probe (test/support/first-request-probe.ts) lists the modules loaded when the first chat
 * completion request is sent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { type ProjectSandbox, projectSandbox, runInProject } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/first-request-probe.ts");

let model: ScriptedModel;
let box: ProjectSandbox;
beforeAll(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
});
afterAll(async () => {
  await model.close();
  box.cleanup();
});

test("a run with its model list kept does not load the listing code before its first request", async () => {
  model.push(step({ text: "one" }), step({ text: "two" }));
  expect(await runInProject(box, ["hi"])).toMatchObject({ code: 0, stdout: "one\n" });
  const out = join(box.dir, "loaded.json");
  const lists = model.modelListArrivals.length;
  expect(await runInProject(box, ["hi"], { env: { BUN_OPTIONS: `--preload ${PROBE}`, PROBE_OUT: out }, source: true })).toMatchObject({ code: 0, stdout: "two\n" });
  // The list was kept: the second run did not ask the server for it.
  expect(model.modelListArrivals.length).toBe(lists);
  const loaded = JSON.parse(readFileSync(out, "utf8")) as string[];
  const ours = (path: string) => loaded.some((m) => m.endsWith(`/src/${path}`));
  expect(ours("model/registry.ts")).toBe(true);
  for (const path of ["model/discovery.ts", "model/models.ts"]) expect([path, ours(path)]).toEqual([path, false]);
});
