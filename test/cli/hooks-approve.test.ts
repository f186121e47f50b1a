import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas, type Sandbox } from "../support/run.ts";
import { HAVE_TMUX, openScreen } from "../support/tmux.ts";

let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(async () => {
  model = await startModel();
  box = projectSandbox(model.url);
  mkdirSync(join(box.project, ".claude"), { recursive: true });
  writeFileSync(join(box.project, ".claude/settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }] } }));
  writeFileSync(join(box.project, "check.sh"), "#!/bin/sh\nexit 0\n");
});
afterEach(async () => {
  await model.close();
  box.cleanup();
});

const listed = async () => (await runLembas(box, ["hooks"], { cwd: box.project })).stdout;

test.skipIf(!HAVE_TMUX)("at a terminal, lembas hooks approve shows the commands and the scripts they run, and approves only on y", async () => {
  expect((await runLembas(box, ["trust"], { cwd: box.project })).code).toBe(0);
  const no = await openScreen(box, { args: ["hooks", "approve"], cwd: box.project });
  try {
    await no.waitFor("[y/N]");
    expect(no.text()).toContain("PreToolUse Bash → ./check.sh");
    expect(no.text()).toContain("and these project files, as they read now: check.sh");
    await no.type("Enter");
    await no.waitFor("nothing was approved");
    expect(await no.exited()).toBe(0);
  } finally {
    await no.close();
  }
  expect(await listed()).toContain("not run: not approved as it reads now");
  const yes = await openScreen(box, { args: ["hooks", "approve"], cwd: box.project });
  try {
    await yes.waitFor("[y/N]");
    await yes.type("y", "Enter");
    await yes.waitFor("approved: sessions in");
    expect(await yes.exited()).toBe(0);
  } finally {
    await yes.close();
  }
  expect(await listed()).not.toContain("not run");
});
