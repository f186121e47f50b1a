/**
 * Nothing the person typed is lost by quitting: a prompt entered during a turn (waiting for the
 * model's next step) that the quit leaves unsent is kept in the project's prompt history, so ↑
 * brings it back in the next run, and the way out says so.
 */
import { describe, expect, test } from "bun:test";
import { step } from "../support/engine.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
/** An answer streamed slowly enough that its next step is never reached before the quit. */
const streaming = () => step({ text: Array.from({ length: 600 }, (_, i) => `w${i} `), chunkDelayMs: 25 });

describe.skipIf(!HAVE_TMUX)("quitting with a prompt not yet sent", () => {
  for (const how of ["SIGTERM", "Ctrl-D"] as const) {
    test(`(${how}) keeps it: the exit says so and ↑ brings it back next time; the model never got it`, async () => {
      suite.model.push(streaming());
      const screen = await suite.open();
      await screen.type("first prompt", "Enter");
      await screen.waitFor("w5 ");
      await screen.type("my queued follow-up with care", "Enter");
      await screen.waitFor("given to the model at its next step");
      if (how === "SIGTERM") process.kill(screen.pid(), "SIGTERM");
      else await screen.type("C-d");
      expect(await screen.exited()).toBe(0);
      expect(screen.text()).toContain("1 message was not sent: ↑ brings it back");
      const again = await suite.open(["-c"]);
      await again.type("Up");
      await again.waitFor("my queued follow-up with care");
      expect(suite.model.requests.filter((r) => JSON.stringify(r.body).includes("queued follow-up"))).toHaveLength(0);
    });
  }
});
