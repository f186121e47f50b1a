/** Esc during /compact stops it at the terminal: the summary call is given up and nothing is kept. */
import { expect, test } from "bun:test";
import { isSummary, step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

test.skipIf(!HAVE_TMUX)("Esc during /compact stops it: the terminal says so, and a later /compact compacts", async () => {
  const { model } = suite;
  model.push(step({ text: "an answer worth summarising" }));
  const screen = await suite.open();
  await screen.type("hello", "Enter");
  await screen.waitFor("an answer worth summarising");
  model.push({ match: isSummary, fail: "hang" });
  await screen.type("/compact", "Enter");
  const end = Date.now() + 10_000;
  while (!model.requests.some((r) => isSummary(r.body))) {
    if (Date.now() > end) throw new Error("the model was never asked for the summary");
    await Bun.sleep(20);
  }
  await screen.waitFor("esc to interrupt");
  await screen.type("Escape");
  await screen.waitFor("/compact was cancelled: the conversation is as it was");
  expect(screen.text()).not.toContain("the conversation was compacted");
  model.push({ match: isSummary, text: "the summary" });
  await screen.type("/compact", "Enter");
  await screen.waitFor("the conversation was compacted");
});
