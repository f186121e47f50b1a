/**
 * lembas run enters its prompt as the terminal does: an action's result is said.
 */
import { describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

describe("lembas run enters its prompt as the terminal does", () => {
  test("an action's result is said: /review outside git, /undo with nothing to undo", async () => {
    const review = await runLembas(box, ["run", "/review"], { cwd: box.project });
    expect(review.code).toBe(0);
    expect(`${review.stdout}${review.stderr}`.trim()).not.toBe("");
    model.push(step({ text: "an answer" }));
    await runLembas(box, ["run", "hello"], { cwd: box.project });
    const undo = await runLembas(box, ["run", "-c", "/undo"], { cwd: box.project });
    expect(undo.code).toBe(0);
    expect(`${undo.stdout}${undo.stderr}`).toMatch(/undid|nothing to undo/);
  });
});
