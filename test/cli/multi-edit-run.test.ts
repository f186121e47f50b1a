import { afterEach, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
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

const SOURCE = "const a = 1;\nconst b = 2;\nconst c = 3;\n";

/** The tool results the model was sent in the run's last step. */
function toolResults(): string[] {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  return (last?.body.messages ?? []).filter((m) => m.role === "tool").map((m) => contentText(m.content));
}

test("lembas run --yes: a multi_edit is applied whole, and one failing edit leaves the file as it was", async () => {
  writeFileSync(join(project, "v.ts"), SOURCE);
  model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "v.ts" } }] }),
    step({
      toolCalls: [
        {
          name: "multi_edit",
          arguments: { path: "v.ts", edits: [{ old_string: "a = 1", new_string: "a = 10" }, { old_string: "c = 3", new_string: "c = 30" }] },
        },
      ],
    }),
    step({
      toolCalls: [
        {
          name: "multi_edit",
          arguments: { path: "v.ts", edits: [{ old_string: "b = 2", new_string: "b = 20" }, { old_string: "d = 4", new_string: "d = 40" }] },
        },
      ],
    }),
    step({ text: "done" }),
  );
  const result = await runLembas(box, ["run", "--yes", "change the numbers"], { cwd: project });
  expect(result.code).toBe(0);
  expect(readFileSync(join(project, "v.ts"), "utf8")).toBe("const a = 10;\nconst b = 2;\nconst c = 30;\n");
  const [, applied, refused] = toolResults();
  expect(applied).toContain("Edited v.ts (2 edits, 2 replacements)");
  expect(applied).toContain("-const a = 1;\n+const a = 10;");
  expect(refused).toContain("Edit 2 of 2: old_string was not found in v.ts.");
  expect(refused).toContain("None of the 2 edits was made: v.ts is unchanged.");
});
