/**
 * A shared session's terminal or service ending, or the terminal starting anew, while the web's
 * turns run or wait: every web prompt is answered (or told to be sent again), none runs twice,
 * nothing hangs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { ofSession, prompt, shareSuite, slow, steps, textStarted } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

// The tests share one service, but the one that restarts it.
const share = shareSuite({ oneService: true });

describe.skipIf(!HAVE_TMUX)("a shared session's terminal or service ending mid-turn", () => {
  test("Ctrl-D while a web turn runs in the shared session asks first (it cancelled without a word); kept, it runs on; quit, the terminal ends, the web's prompt is answered, left is said", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(slow(1200, 25));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "quit-run-1", 60_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    await s.type("C-d");
    await s.waitFor("A prompt from the web is running in this shared session");
    await s.type("Enter");
    await s.waitGone("A prompt from the web is running");
    expect(s.exitCode()).toBeNull();
    await s.type("/quit", "Enter");
    await s.waitFor("Quit and interrupt it");
    expect(s.text()).toContain(" working ");
    await s.type("Down", "Enter");
    expect(await s.exited(8000)).toBe(0);
    const result = await first;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 5000, from);
    // The same turnId again is not run a second time.
    const again = await prompt(link, sessionId, "long", "quit-run-1");
    expect(again._meta.lembas.turnId).toBe("quit-run-1");
    expect(steps(d)).toBe(1);
  }, 40_000);

  test("SIGTERM while a web turn's card is open: the web hears settled and left, its prompt is answered, nothing hangs", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > never.txt" } }] }));
    const from = link.notifications.length;
    const asked = link.requests.length;
    const answer = prompt(link, sessionId, "make it", "term-card-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000, asked);
    await s.waitFor("Yes, once");
    process.kill(s.pid(), "SIGTERM");
    expect(await s.exited(8000)).toBe(0);
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    expect(existsSync(join(d.project, "never.txt"))).toBe(false);
  }, 40_000);

  test("the service restarted while a web turn runs in the terminal's session: the turn finishes there, and the same turnId re-sent is not run twice", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal({ own: true });
    d.model.push(slow(240, 25, "r"));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "restart-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    expect(await d.kill("SIGTERM")).toBe(0);
    expect(await first).toBeInstanceOf(Error);
    const again = await d.serve();
    const announce = await again.waitForNotification(ofSession("_lembas/session/announce", sessionId), 15_000);
    // Sent again while the terminal still runs it.
    expect((announce.params as { busy: boolean }).busy).toBe(true);
    const answer = await prompt(again, sessionId, "long", "restart-1", 30_000);
    expect(answer.stopReason).toBe("end_turn");
    expect(answer._meta.lembas.turnId).toBe("restart-1");
    await s.waitFor("r59");
    expect(steps(d)).toBe(1);
  }, 45_000);

  test("/new while a web prompt waits behind a running web turn: the queued prompt is run (here or at the service), once, and answered", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(slow(100, 25), step({ text: "the queued one ran" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "new-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "queued", "new-2", 30_000).catch((e: Error) => e);
    await Bun.sleep(300);
    await s.type("/new", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 10_000, from);
    const [a, b] = await Promise.all([first, second]);
    expect(a).not.toBeInstanceOf(Error);
    expect(b).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "new-2" } } });
    expect(steps(d)).toBe(2);
  }, 45_000);

  test("SIGHUP with a web turn running and another queued: the terminal ends, the queued one runs once at the service", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(slow(200, 25), step({ text: "queued ran" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "hup-1", 30_000).catch((e: Error) => e);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "queued", "hup-2", 30_000);
    await Bun.sleep(300);
    process.kill(s.pid(), "SIGHUP");
    expect(await s.exited(8000)).toBe(0);
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "hup-2" } } });
    await first;
    expect(steps(d)).toBe(2);
  }, 40_000);

  test("a web prompt queued behind the terminal's turn when the terminal quits is not answered cancelled: it runs, or the web hears to send it again", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal({ args: ["--mode", "auto"] });
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 3" } }] }), step({ text: "slept" }));
    await s.write("nap");
    await s.type("Enter");
    await d.model.waitForRequests(1, 10_000);
    const web = link
      .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "queued from the web" }], _meta: { lembas: { turnId: "web-queued" } } }, 20_000)
      .then((r) => ({ ok: r as { stopReason: string } }), (e: { code?: number; message?: string }) => ({ error: e }));
    await Bun.sleep(300);
    // The terminal's own turn runs: /quit does not ask.
    await s.type("/quit", "Enter");
    await s.exited(15_000);
    const answer = await web;
    // Cancelled would tell the web its prompt was dealt with; it never ran.
    expect("ok" in answer ? answer.ok.stopReason : "error").not.toBe("cancelled");
  }, 40_000);
});
