/**
 * The words after lembas: what is a prompt and what is an option or a subcommand.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
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

describe("the words after lembas", () => {
  test("a prompt on stdin that starts with a dash (a markdown list) is the prompt, not an option", async () => {
    const r = await runLembas(box, [], { cwd: box.project, stdin: "- fix the list\n- and this one\n" });
    // Nothing said but the session's closing line.
    expect(afterHeader(r.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(r.code).toBe(0);
    expect(JSON.stringify(model.requests.at(-1)?.body.messages?.at(-1))).toContain("- fix the list");
  });

  test("after --, --help is the prompt", async () => {
    // `bun src/index.ts -- X` drops its first `--` (the compiled lembas does not): the second is the program's.
    const r = await runLembas(box, ["--", "--", "--help"], { cwd: box.project });
    expect(r.stdout).not.toContain("USAGE");
    expect(r.code).toBe(0);
    expect(JSON.stringify(model.requests.at(-1)?.body.messages?.at(-1))).toContain("--help");
  });

  test("a short word two edits from a subcommand is a prompt (test is not trust); one edit is still a typo", async () => {
    const test = await runLembas(box, ["test"], { cwd: box.project });
    // Nothing said but the session's closing line.
    expect(afterHeader(test.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(test.code).toBe(0);
    const rum = await runLembas(box, ["rum"], { cwd: box.project });
    expect(rum.code).toBe(2);
    expect(rum.stderr).toContain("did you mean run?");
    const sevre = await runLembas(box, ["sevre"], { cwd: box.project });
    expect(sevre.stderr).toContain("did you mean serve?");
  });
});
