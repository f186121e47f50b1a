/**
 * Who has a shared session when a second terminal asks for it (`lembas -r`), or it is deleted
 * from the web, a shell or the terminal: one holder, answered turns, the status bar true.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { type Device, newSession, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link, RpcNotification } from "../support/instance.ts";
import { runLembas } from "../support/run.ts";
import { ofSession, prompt, shareSuite, slow, steps, textStarted } from "../support/share-suite.ts";
import { HAVE_TMUX, openScreen } from "../support/tmux.ts";

const share = shareSuite({ oneService: true });

/** The file's one service, a directory of the test's own outside remote.roots, and where the test's notifications begin. */
function outsideRoots(): { d: Device; link: Link; elsewhere: string; before: number } {
  const { d, link, project } = share.service();
  const elsewhere = join(d.box.dir, `elsewhere-${basename(project)}`);
  mkdirSync(elsewhere, { recursive: true });
  return { d, link, elsewhere, before: link.notifications.length };
}

const announcedIn = (cwd: string) => (n: RpcNotification) => n.method === "_lembas/session/announce" && (n.params as { cwd: string }).cwd === cwd;

describe.skipIf(!HAVE_TMUX)("a shared session changing hands", () => {
  test("a second terminal `lembas -r` of the session the first shares: refused in one line, the first keeps it and the web's prompts still go there", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(step({ text: "first kept" }));
    await prompt(link, sessionId, "hello", "two-0");
    const second = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    share.screens.push(second);
    // Its one line, before the web's prompt below (a second that took the session would get it).
    const shown = await second.waitFor(/held|another|in use|open in/i, 15_000);
    d.model.push(step({ text: "still the first" }));
    const answer = await prompt(link, sessionId, "who has it", "two-1");
    expect(answer.stopReason).toBe("end_turn");
    await s.waitFor("still the first");
    expect(shown).toMatch(/held|another|in use|open in/i);
  }, 40_000);

  test("a web delete of the terminal's session while a card is open: the web's card goes, the turn is answered, the terminal starts a new one", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > deleted.txt" } }] }));
    const from = link.notifications.length;
    const answer = prompt(link, sessionId, "make it", "del-card-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    const deleted = await link.request("_lembas/session/delete", { sessionId }, 10_000);
    expect(deleted).toBeDefined();
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    await s.waitGone("Yes, once", 5000);
    const next = await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as { sessionId: string }).sessionId !== sessionId, 10_000, from);
    expect(next).toBeDefined();
    expect(existsSync(join(d.project, "deleted.txt"))).toBe(false);
  }, 40_000);

  test("lembas sessions delete of the shared session from a shell while a web turn runs: done in one line, the turn answered, the web hears deleted", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    // The turn's first words come at once, the rest not before the delete has ended it.
    let release = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    d.model.push(step({ text: Array.from({ length: 400 }, (_, i) => `w${i} `), hold }));
    const from = link.notifications.length;
    try {
      const first = prompt(link, sessionId, "long", "shell-del-1", 30_000).catch((e: Error) => e);
      await textStarted(link, sessionId, from);
      const run = await runLembas(d.box, ["sessions", "delete", sessionId], { cwd: d.project });
      expect(run.code).toBe(0);
      const result = await first;
      if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
      await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000, from);
      await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as { sessionId: string }).sessionId !== sessionId, 10_000, from);
      expect(s.exitCode()).toBeNull();
    } finally {
      release();
    }
  }, 40_000);

  test("a web delete of a session shared by name outside the roots: the new session is not shared, and the status bar stops saying so", async () => {
    const { d, link, elsewhere, before } = outsideRoots();
    const s = await openScreen(d.box, { cwd: elsewhere, args: ["--share"] });
    share.screens.push(s);
    const { sessionId } = (await link.waitForNotification(announcedIn(elsewhere), 15_000, before)).params as { sessionId: string };
    await s.waitFor("shared · inst");
    const from = link.notifications.length;
    await link.request("_lembas/session/delete", { sessionId }, 10_000);
    await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000, from);
    await s.waitGone("shared · inst", 5000);
    expect(link.notifications.slice(from).some((n) => n.method === "_lembas/session/announce")).toBe(false);
  }, 40_000);

  test("/delete at the terminal of a session shared by name outside the roots: the status bar stops saying shared", async () => {
    const { d, link, elsewhere, before } = outsideRoots();
    d.model.push(step({ text: "something to delete" }));
    const s = await openScreen(d.box, { cwd: elsewhere, args: ["--share"] });
    share.screens.push(s);
    const { sessionId } = (await link.waitForNotification(announcedIn(elsewhere), 15_000, before)).params as { sessionId: string };
    await s.waitFor("shared · inst");
    await s.type("hello", "Enter");
    await s.waitFor("something to delete");
    await s.type("/delete", "Enter");
    await s.waitFor("Delete it");
    await s.type("Down", "Enter");
    await link.waitForNotification(ofSession("_lembas/session/deleted", sessionId), 5000, before);
    await s.waitGone("shared · inst", 5000);
  }, 40_000);

  test("two web deletes of the terminal's session at once: both answered, one new session, shared, and the terminal fine", async () => {
    const { link, s, sessionId } = await share.sharedTerminal();
    const from = link.notifications.length;
    const [a, b] = await Promise.all([
      link.request("_lembas/session/delete", { sessionId }, 10_000).catch((e: Error) => e),
      link.request("_lembas/session/delete", { sessionId }, 10_000).catch((e: Error) => e),
    ]);
    await Bun.sleep(1500);
    const announced = link.notifications.slice(from).filter((n) => n.method === "_lembas/session/announce").map((n) => (n.params as { sessionId: string }).sessionId);
    expect(new Set(announced).size).toBe(1);
    expect([a, b].filter((r) => r instanceof Error).map((e) => (e as Error).message).join(" ")).not.toMatch(/internal|undefined|TypeError/i);
    expect(s.text()).not.toMatch(/could not|error/i);
    expect(s.exitCode()).toBeNull();
  }, 30_000);

  test("two terminals `lembas -r` of one session the web runs a turn in at the service: one takes it, the other says so in one line, the web's queued prompt reaches the one that has it", async () => {
    const d = await startDevice();
    share.device = d;
    const link = await d.serve();
    const sessionId = await newSession(link, d.project);
    d.model.push(slow(120, 25), step({ text: "queued, answered by the winner" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "a long one", "race-1", 30_000);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "the queued one", "race-2", 30_000);
    await Bun.sleep(200);
    const a = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    share.screens.push(a);
    const b = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    share.screens.push(b);
    expect(await first).toMatchObject({ stopReason: "end_turn" });
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "race-2" } } });
    await Bun.sleep(1500);
    const shows = [a, b].map((s) => s.text());
    const winners = shows.filter((t) => t.includes("queued, answered by the winner"));
    expect(winners).toHaveLength(1);
    const loser = shows.find((t) => !t.includes("queued, answered by the winner")) ?? "";
    expect(loser).toMatch(/another lembas process|held/);
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("terminal");
    expect(steps(d)).toBe(2);
  }, 60_000);
});
