/**
 * What is typed right after /new belongs to the new session, however long the switch takes: the
 * session left ends with a SessionEnd hook held open by the test, so the prompt is typed while the
 * terminal is still between the two sessions.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isStep } from "../support/engine.ts";
import { sleep } from "../support/recorder.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });

/** The user messages of the turn steps the model was asked for, each request's in order. */
function userMessages(): string[][] {
  return suite.model.requests.filter((r) => isStep(r.body)).map((r) => (r.body.messages ?? []).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))));
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 400) throw new Error(`${what} never happened`);
    await sleep(25);
  }
}

describe.skipIf(!HAVE_TMUX)("a prompt typed right after /new", () => {
  test("goes to the new session and is sent to the model, even while the session left is still ending", async () => {
    const started = join(suite.box.dir, "end-started");
    const go = join(suite.box.dir, "end-go");
    const script = join(suite.box.dir, "session-end.sh");
    writeFileSync(script, `#!/bin/sh\ntouch ${started}\ni=0\nwhile [ ! -f ${go} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n`);
    chmodSync(script, 0o755);
    appendFileSync(join(suite.box.configDir, "config.yaml"), `hooks:\n  SessionEnd:\n    - hooks:\n        - type: command\n          command: ${script}\n`);
    const screen = await suite.open();
    await screen.type("first", "Enter");
    await suite.model.waitForRequests(1);
    await screen.waitGone(/ working \d+(s|m)/);
    const steps = userMessages().length;

    await screen.type("/new", "Enter");
    await until(() => existsSync(started), "the session left's SessionEnd hook");
    await screen.type("second", "Enter");
    // The composer took it (it is empty again) while the switch still waits on the hook.
    await screen.waitFor(/─{10,}\n\s*\n─{10,}/);
    writeFileSync(go, "");

    await until(() => userMessages().length > steps, "a model request for the prompt typed after /new");
    await screen.waitFor("› second");
    const asked = userMessages().at(-1) ?? [];
    expect(asked.at(-1)).toContain("second");
    // The new session's own conversation: nothing of the one left.
    expect(asked.filter((m) => m.startsWith("first"))).toEqual([]);
  });
});
