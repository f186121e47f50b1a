/**
 * One stored row that no longer reads (its body not JSON: a disk error, a hand edit, an older
 * version's bug) is skipped as a row of the wrong shape is, and the session is continued: `lembas
 * run --session` runs the next turn with the rest of the history, `lembas sessions show` prints it.
 */
import { expect, test } from "bun:test";
import { isStep, step } from "../support/engine.ts";
import { contentText, type ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";
import { NOT_JSON, spoilRow, spoilTurnAnswers, WRONG_SHAPE } from "../support/spoilt-rows.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => {
  ({ box, model } = made);
});

const run = (args: string[]) => runLembas(box, args, { cwd: box.project });

test("a session with a row that is not JSON (and one of the wrong shape) is continued by run --session and shown", async () => {
  model.push(
    step({ text: "Looking twice.", toolCalls: [{ name: "bash", arguments: { command: "echo first-out" } }, { name: "bash", arguments: { command: "echo second-out" } }] }),
    step({ text: "Both ran." }),
  );
  const first = await run(["run", "--yes", "--format", "json", "run both"]);
  expect(first.code).toBe(0);
  const sessionId = (JSON.parse(first.stdout.split("\n")[0] ?? "{}") as { id: string }).id;
  expect(sessionId).toStartWith("ses_");
  spoilRow(box.stateDir, sessionId, "tool", 0, NOT_JSON);
  spoilRow(box.stateDir, sessionId, "tool", 1, WRONG_SHAPE);
  // The turn's kept answer too (read when the session is opened to settle its turns).
  expect(spoilTurnAnswers(box.stateDir, sessionId, NOT_JSON)).toBeGreaterThan(0);

  model.push(step({ text: "Carrying on." }));
  const next = await run(["run", "--session", sessionId, "and now?"]);
  expect({ code: next.code, stdout: next.stdout, stderr: next.stderr.includes("JSON Parse") }).toEqual({ code: 0, stdout: "Carrying on.\n", stderr: false });
  const sent = (model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? []).map((m) => contentText(m.content)).join("\n");
  // The rest of the history is sent: the prompt, the first answers, the new prompt; the spoilt results are not.
  expect(sent).toContain("run both");
  expect(sent).toContain("Both ran.");
  expect(sent).toContain("and now?");
  expect(sent).not.toContain("first-out");
  expect(sent).not.toContain("second-out");

  const shown = await run(["sessions", "show", sessionId]);
  expect(shown.code).toBe(0);
  for (const text of ["run both", "Looking twice.", "Both ran.", "and now?", "Carrying on."]) expect(shown.stdout).toContain(text);
}, 60_000);
