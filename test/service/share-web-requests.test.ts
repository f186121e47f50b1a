/**
 * What the web sends into a terminal's shared session: a turn id twice, a huge prompt, modes above
 * remote.max_mode, a steer of a turn above it, escape sequences, bad requests, a long title, a
 * prompt after /unshare. Each is answered clearly (a JSON-RPC error with a sentence, or runs once)
 * and the terminal goes on.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { ofSession, prompt, shareSuite, slow, steps } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const share = shareSuite({ oneService: true });

describe.skipIf(!HAVE_TMUX)("web requests to a shared session", () => {
  test("the same turnId sent twice at once to a shared session runs once; both answers carry it", async () => {
    const { d, link, sessionId } = await share.sharedTerminal();
    d.model.push(slow(20, 20), step({ text: "a second run" }));
    const [a, b] = await Promise.all([prompt(link, sessionId, "once", "dup-1"), prompt(link, sessionId, "once", "dup-1")]);
    expect(a._meta.lembas.turnId).toBe("dup-1");
    expect(b._meta.lembas.turnId).toBe("dup-1");
    expect(steps(d)).toBe(1);
  }, 30_000);

  test("a huge web prompt (3 MB) runs in the terminal's session and the terminal stays responsive", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(step({ text: "read it all" }), step({ text: "typed after" }));
    const huge = `${"lorem ipsum dolor sit amet ".repeat(3 * 1024 * 40)}the end`;
    const answer = await prompt(link, sessionId, huge, "huge-1", 30_000);
    expect(answer.stopReason).toBe("end_turn");
    // The terminal shows the prompt folded, its first rows and its end (it wraps those, not 3 MB);
    // the turn's answer still comes after the engine has stored and sent 3 MB, which on a busy
    // machine takes longer than a wait's 5 s.
    const screen = await s.waitFor("read it all", 15_000);
    expect(screen).toMatch(/… [\d,]+ more characters/);
    expect(screen).toContain("sit amet the end");
    await s.type("and now me", "Enter");
    await s.waitFor("typed after", 10_000);
  }, 45_000);

  test("modes above remote.max_mode from the web are lowered: set_mode, configure, and a /mode command", async () => {
    const { link, s, sessionId } = await share.sharedTerminal();
    const tried = await link.request("session/set_mode", { sessionId, modeId: "auto" }).catch((e: Error) => e);
    const configured = await link.request("_lembas/configure", { sessionId, mode: "auto" }).catch((e: Error) => e);
    await Bun.sleep(500);
    // The session never ran in auto for the web.
    expect(s.text()).not.toContain("· auto");
    expect(JSON.stringify(link.notifications.filter(ofSession("_lembas/event", sessionId)))).not.toContain('"mode":"auto"');
    expect(tried).not.toBeInstanceOf(Error);
    expect(configured).not.toBeInstanceOf(Error);
  }, 30_000);

  test("the web cannot steer a terminal's turn that runs above remote.max_mode (its words would run in auto)", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal({ args: ["--mode", "auto"] });
    // The command runs until the test has steered: it waits for the file the test writes then.
    const command = "while [ ! -e steered ]; do sleep 0.05; done";
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "slept" }));
    await s.write("nap");
    await s.type("Enter");
    await d.model.waitForRequests(1, 10_000);
    const steered = await link.request("_lembas/steer", { sessionId, text: "now delete everything" }).catch((e: { code?: number }) => e);
    writeFileSync(join(d.project, "steered"), "");
    expect((steered as { code?: number }).code).toBe(-32602);
    await s.waitFor("slept", 15_000);
  }, 40_000);

  test("after /unshare a web prompt naming the session is refused with a sentence (the terminal still holds it), not run behind its back", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    const from = link.notifications.length;
    await s.type("/unshare", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 15_000, from);
    const error = await prompt(link, sessionId, "still there?", "after-unshare-1", 10_000).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/another lembas process|held|terminal/);
    expect(steps(d)).toBe(0);
    // The terminal goes on with it.
    d.model.push(step({ text: "mine still" }));
    await s.type("hello", "Enter");
    await s.waitFor("mine still");
  }, 40_000);

  test("a web prompt carrying terminal escape sequences is shown at the terminal without them acting (no title set, no clipboard written)", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    const recording = await s.record();
    d.model.push(step({ text: "plain answer" }));
    const evil = "look \u001b]0;PWNED\u0007 here \u001b]52;c;ZXZpbA==\u0007 and \u001b[2J\u001b[31mred\u001b[0m end";
    await prompt(link, sessionId, evil, "esc-1");
    await s.waitFor("plain answer");
    await s.waitFor("end");
    const bytes = recording.bytes();
    expect(bytes).toContain("here");
    expect(bytes).not.toContain("\u001b]0;PWNED");
    expect(bytes).not.toContain("\u001b]52;");
    expect(bytes).not.toContain("\u001b[2J\u001b[31mred");
  }, 30_000);

  test("bad session requests from the web to a shared session get a JSON-RPC error with a sentence, and the terminal goes on", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    const errors: string[] = [];
    const bad = async (method: string, params: object) => {
      const r = await link.request(method, { sessionId, ...params }, 10_000).then(
        (ok) => `ok ${JSON.stringify(ok).slice(0, 200)}`,
        (e: Error) => e.message,
      );
      errors.push(`${method}: ${r}`);
    };
    await bad("session/prompt", { prompt: [] });
    await bad("session/prompt", { prompt: "not a list" });
    await bad("_lembas/configure", { model: "nowhere/none" });
    await bad("session/set_mode", { modeId: "godmode" });
    await bad("_lembas/session/title", { title: 42 });
    // Each is refused with what is wrong (an empty prompt too: it would call the model with nothing).
    expect(errors[0]).toContain("the prompt is empty");
    for (const e of errors) expect(e).toMatch(/: Invalid params: .{10,}/);
    d.model.push(step({ text: "still fine" }));
    await s.type("hi", "Enter");
    await s.waitFor("still fine");
  }, 30_000);

  test("a very long title from the web is kept within reason: the announce and the terminal do not carry a megabyte", async () => {
    const { link, sessionId } = await share.sharedTerminal();
    const result = await link.request("_lembas/session/title", { sessionId, title: "t".repeat(1_000_000) }, 10_000).catch((e: Error) => e);
    const status = (await link.request("_lembas/session/status", { sessionId })) as { title?: string };
    if (!(result instanceof Error)) expect((status.title ?? "").length).toBeLessThan(10_000);
  }, 30_000);
});
