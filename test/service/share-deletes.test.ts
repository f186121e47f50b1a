/**
 * Deletes from the device, wherever the session is held, end to end: the real `lembas serve`
 * linked to the simulated instance, the real terminal in tmux (its project inside remote.roots,
 * trusted), and `lembas sessions delete` from a shell. The web hears `_lembas/session/deleted`
 * at once when a link is up, else after the next initialize; a web delete of a terminal's session
 * makes the terminal start a new one; an empty session the web was shown and the terminal
 * discarded is told deleted too.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { keepDelete } from "../../src/store/deletes.ts";
import { type Device, newSession, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { runLembas } from "../support/run.ts";
import { terminalOnService } from "../support/share-suite.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

type Announce = { sessionId: string };

/** Whether the store still has a session. */
function stored(d: Device, sessionId: string): boolean {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    return db.query("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) !== null;
  } finally {
    db.close();
  }
}

/** The session the terminal shows, as its /status says. */
async function shownId(s: Screen, not?: string): Promise<string> {
  await s.type("/status", "Enter");
  const pattern = not ? new RegExp(`session (?!${not})(ses_[\\w-]+)`) : /session (ses_[\w-]+)/;
  return (await s.waitFor(pattern)).match(pattern)?.[1] ?? "";
}

/** The methods the link heard about a session, from `from` on. */
function heard(link: Link, sessionId: string, from = 0): string[] {
  return link.notifications
    .slice(from)
    .filter((n) => (n.params as { sessionId?: string } | null)?.sessionId === sessionId && n.method.startsWith("_lembas/session/"))
    .map((n) => n.method);
}

/**
 * The link's look at the deletes it keeps (every 3 s) made far longer than any wait here: a delete the
 * link hears then came over the IPC, at once.
 */
const NO_KEPT_LOOK = { LEMBAS_TEST_KEPT_DELETES_EVERY_MS: "600000" };

/** The file's one service, with the test's own model and project (work/project-N): for the tests that neither stop it nor start it with an env of their own. */
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});

/** The file's one service, and the terminal open in the test's project, shared: the announce's session. */
async function terminalOnSharedService(args: string[] = []): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }> {
  const { s, sessionId } = await terminalOnService(shared, (opened) => (screen = opened), args);
  return { d: shared.d, link: shared.link, s, sessionId };
}

/** A device of the test's own serving one link, and the terminal open in its project, shared: the announce's session. */
async function sharedTerminal(args: string[] = [], env: Record<string, string> = {}): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }> {
  const d = await startDevice();
  device = d;
  const link = await d.serve({ env });
  const s = await openScreen(d.box, { cwd: d.project, args });
  screen = s;
  await s.waitFor("test/test-model");
  const { sessionId } = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
  return { d, link, s, sessionId };
}

describe.skipIf(!HAVE_TMUX)("deletes from the device reach the web", () => {
  test("/delete at the terminal with no service running is told after the next initialize", async () => {
    const { d, s, sessionId } = await sharedTerminal();
    d.model.push(step({ text: "kept a while" }));
    await s.type("hello", "Enter");
    await s.waitFor("kept a while");
    expect(await d.kill("SIGTERM")).toBe(0);
    await s.type("/delete", "Enter");
    await s.waitFor("Delete this session (1 turn)?");
    await s.type("Down", "Enter");
    await s.waitFor(`deleted ${sessionId}`);
    expect(stored(d, sessionId)).toBe(false);

    const next = await d.serve();
    const note = await next.waitForNotification((n) => n.method === "_lembas/session/deleted" && (n.params as Announce).sessionId === sessionId, 10_000);
    expect(note.params).toEqual({ sessionId });
    // The terminal's new session is shared with the new link; the deleted one is never announced again.
    const announce = (await next.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
    expect(announce.sessionId).not.toBe(sessionId);
    expect(heard(next, sessionId)).toEqual(["_lembas/session/deleted"]);
  });

  test("/delete at the terminal with the service linked: the link hears deleted at once, and no left", async () => {
    const { link, s, sessionId } = await sharedTerminal([], NO_KEPT_LOOK);
    const from = link.notifications.length;
    await s.type("/delete", "Enter");
    await s.waitFor(`deleted ${sessionId}`);
    // The service is told over the IPC, not at its next look at the outbox (NO_KEPT_LOOK: not in this test).
    await link.waitForNotification((n) => n.method === "_lembas/session/deleted" && (n.params as Announce).sessionId === sessionId, 10_000, from);
    // The new session the terminal opened is shared; the deleted one was not "left" (available) first.
    const next = (await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as Announce).sessionId !== sessionId, 10_000, from)).params as Announce;
    expect(await shownId(s, sessionId)).toBe(next.sessionId);
    expect(heard(link, sessionId, from)).toEqual(["_lembas/session/deleted"]);
  });

  test("a web delete of the terminal's session: the terminal deletes it and starts a new one, shared", async () => {
    const { d, link, s, sessionId } = await terminalOnSharedService();
    d.model.push(step({ text: "about to go" }));
    await s.type("hello", "Enter");
    await s.waitFor("about to go");
    const from = link.notifications.length;
    expect(await link.request("_lembas/session/delete", { sessionId }, 15_000)).toEqual({ deleted: true });
    expect(stored(d, sessionId)).toBe(false);
    const next = (await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as Announce).sessionId !== sessionId, 10_000, from)).params as Announce;
    // The screen shows the new session, and works in it.
    expect(await shownId(s, sessionId)).toBe(next.sessionId);
    expect(stored(d, next.sessionId)).toBe(true);
    expect(heard(link, sessionId, from)).not.toContain("_lembas/session/left");
    d.model.push(step({ text: "fresh start" }));
    await s.type("again", "Enter");
    await s.waitFor("fresh start");
  });

  test("lembas sessions delete of a manual-mode terminal's session: the terminal says so, and its new session still asks before an edit", async () => {
    const { d, s, sessionId } = await terminalOnSharedService(["--mode", "manual"]);
    await s.waitFor("test/test-model · manual ·");
    const result = await runLembas(d.box, ["sessions", "delete", sessionId]);
    expect(result).toMatchObject({ code: 0, stdout: `deleted ${sessionId}\n` });
    await s.waitFor(`session ${sessionId} was deleted outside this terminal`);
    expect(s.text()).toContain("test/test-model · manual ·");
    d.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "made.txt", content: "x" } }] }), step({ text: "done" }));
    await s.type("make a file", "Enter");
    await s.waitFor("manual mode asks before changing files");
    expect(stored(d, sessionId)).toBe(false);
  });

  test("a session pending deletion is not announced again when the service comes back", async () => {
    const { d, s, sessionId } = await sharedTerminal();
    expect(await d.kill("SIGTERM")).toBe(0);
    // A delete of it is in the outbox (another client's, not yet told): the chat must not be made again.
    const db = openDb(join(d.box.stateDir, "lembas.db"));
    keepDelete(db, sessionId, ["elsewhere"]);
    db.close();
    const next = await d.serve();
    await Bun.sleep(2000);
    expect(heard(next, sessionId)).not.toContain("_lembas/session/announce");
    // The terminal goes on working.
    d.model.push(step({ text: "still here" }));
    await s.type("hello", "Enter");
    await s.waitFor("still here");
  });

  test("an empty session the web was shown and /resume discarded is told deleted", async () => {
    const d = await startDevice();
    device = d;
    d.model.push(step({ text: "older" }));
    const run = await runLembas(d.box, ["run", "--format", "json", "hello"], { cwd: d.project });
    const older = (JSON.parse(run.stdout.split("\n")[0] ?? "{}") as { id: string }).id;
    expect(older).toStartWith("ses_");
    const link = await d.serve();
    screen = await openScreen(d.box, { cwd: d.project });
    const s = screen;
    await s.waitFor("test/test-model");
    const { sessionId: empty } = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
    const from = link.notifications.length;
    await s.type(`/resume ${older}`, "Enter");
    await s.waitFor("older");
    const note = await link.waitForNotification((n) => n.method === "_lembas/session/deleted" && (n.params as Announce).sessionId === empty, 10_000, from);
    expect(note.params).toEqual({ sessionId: empty });
    expect(stored(d, empty)).toBe(false);
    expect(heard(link, empty, from)).toEqual(["_lembas/session/deleted"]);
  });
});

describe("lembas sessions delete, wherever the session is held", () => {
  test("a session the service holds (the web opened it) is deleted through the service, and the link hears deleted", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve({ env: NO_KEPT_LOOK });
    const sessionId = await newSession(link, d.project);
    const from = link.notifications.length;
    const result = await runLembas(d.box, ["sessions", "delete", sessionId]);
    expect(result).toMatchObject({ code: 0, stdout: `deleted ${sessionId}\n` });
    expect(stored(d, sessionId)).toBe(false);
    // Through the service, not at the link's next look at the kept deletes (NO_KEPT_LOOK: not in this test).
    await link.waitForNotification((n) => n.method === "_lembas/session/deleted" && (n.params as Announce).sessionId === sessionId, 10_000, from);
    // The web's own session ended with it: a prompt for it is refused, not run.
    await expect(link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] })).rejects.toThrow();
  }, 30_000);

  test("one another lembas holds with no service running is refused in one line saying what to do", async () => {
    const d = await startDevice();
    device = d;
    if (!HAVE_TMUX) return;
    screen = await openScreen(d.box, { cwd: d.project });
    await screen.waitFor("test/test-model");
    const id = await shownId(screen);
    const result = await runLembas(d.box, ["sessions", "delete", id]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`session ${id} is open in another lembas process`);
    expect(result.stderr).toContain("no service runs");
    expect(result.stderr).toContain("delete it there");
    expect(stored(d, id)).toBe(true);
  }, 30_000);

  test("one a terminal holds and does not share, with the service running, is refused by the service in one line", async () => {
    const { d } = shared;
    if (!HAVE_TMUX) return;
    // Outside remote.roots: the terminal is connected to the service but shares nothing.
    screen = await openScreen(d.box, { cwd: d.box.dir });
    await screen.waitFor("test/test-model");
    const id = await shownId(screen);
    const result = await runLembas(d.box, ["sessions", "delete", id]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`session ${id} is open in another lembas process`);
    expect(result.stderr).toContain("which the service cannot reach: delete it there");
    expect(stored(d, id)).toBe(true);
  }, 30_000);
});
