/**
 * Ctrl-C on a turn from the web in a shared session asks first, as quitting does (it cancelled the
 * web's prompt without a word, and Ctrl-C twice more quit); Ctrl-C on the person's own turn still
 * stops it at once (test/tui/ctrl-c.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { prompt, shareSuite, slow, steps, textStarted } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const share = shareSuite({ oneService: true });
const ASKED = "A prompt from the web is running in this shared session: Ctrl-C interrupts it";

describe.skipIf(!HAVE_TMUX)("Ctrl-C on a turn from the web", () => {
  test("Ctrl-C asks first; Ctrl-C again keeps it running (it is not a way to quit), and the web's prompt ends as it would", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(slow(160, 25));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "long", "ctrl-c-keep", 60_000);
    await textStarted(link, sessionId, from);
    await s.type("C-c");
    await s.waitFor(ASKED);
    // The second Ctrl-C closes the question: the web's prompt runs on, nothing quits.
    await s.type("C-c");
    await s.waitGone(ASKED);
    await s.type("C-c");
    await s.waitFor(ASKED);
    await s.type("Enter");
    await s.waitGone(ASKED);
    expect(s.exitCode()).toBeNull();
    expect((await answer).stopReason).toBe("end_turn");
    await s.waitFor("w159");
    expect(s.text()).not.toContain("interrupted");
    expect(steps(d)).toBe(1);
  }, 45_000);

  test("Ctrl-C then “Interrupt it”: the web hears cancelled, the transcript says whose prompt was interrupted, the terminal stays", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(slow(1200, 25));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "long", "ctrl-c-stop", 60_000);
    await textStarted(link, sessionId, from);
    await s.type("C-c");
    await s.waitFor("Interrupt it");
    await s.type("Down", "Enter");
    expect((await answer).stopReason).toBe("cancelled");
    await s.waitFor("interrupted the prompt from the web");
    await s.waitGone(/ working \d+(s|m)/);
    expect(s.exitCode()).toBeNull();
    expect(s.text()).not.toContain("w1199");
  }, 45_000);
});
