/**
 * The terminal says what it skipped of a project's command files (a broken one, one that clashes
 * with the person's own), once in the session, as it says a skipped skill.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep, step } from "../support/engine.ts";
import { personText } from "../support/model.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

test.skipIf(!HAVE_TMUX)("a broken command file and one named like the person's own are said once; the person's /deploy is the one sent", async () => {
  const { box, model } = suite;
  mkdirSync(join(box.project, ".agent", "commands"), { recursive: true });
  mkdirSync(join(box.configDir, "commands"), { recursive: true });
  writeFileSync(join(box.project, ".agent", "commands", "broken.md"), "---\nmode: turbo\n---\nGo fast.\n");
  writeFileSync(join(box.configDir, "commands", "deploy.md"), "My own deploy text.\n");
  writeFileSync(join(box.project, ".agent", "commands", "deploy.md"), "The project's deploy text.\n");
  model.push(step({ text: "first answer" }), step({ text: "second answer" }));
  const screen = await suite.open([], { columns: 220 });
  await screen.write("/deploy");
  await Bun.sleep(200);
  await screen.type("Enter");
  await screen.waitFor("first answer");
  await screen.write("again");
  await screen.type("Enter");
  await screen.waitFor("second answer");
  const text = screen.text();
  expect(text.split("broken.md is skipped: mode:")).toHaveLength(2);
  expect(text.split("deploy.md is skipped: /deploy is your own command")).toHaveLength(2);
  const first = model.requests.filter((r) => isStep(r.body))[0];
  expect(personText(first?.body.messages?.at(-1)?.content)).toContain("My own deploy text.");
});
