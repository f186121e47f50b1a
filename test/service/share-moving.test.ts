/**
 * A session moving between the service and a terminal, and the faults on the way: `lembas -r` of
 * a session the web opened at the service (its running turn finishes there, the prompts queued
 * behind it follow to the terminal), the next web prompt after the terminal let go, kill -9 of
 * either process mid-turn with the same turnId sent again (the model asked once), a terminal
 * that stops answering (SIGSTOP), and the web prompts queued in a terminal that quits. The real
 * `lembas serve` linked to the simulated instance, the real terminal in tmux.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Device, lembasEvents, newSession, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link, RpcNotification } from "../support/instance.ts";
import { terminalOnService } from "../support/share-suite.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
let stopped: number | null = null;
afterEach(async () => {
  if (stopped !== null) process.kill(stopped, "SIGCONT");
  stopped = null;
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

type PromptResult = { stopReason: string; _meta: { lembas: { turnId: string } } };

/** `n` words streamed `delayMs` apart: a turn that runs a while. */
const slow = (n: number, delayMs: number, word = "w") => step({ text: Array.from({ length: n }, (_, i) => `${word}${i} `), chunkDelayMs: delayMs });

/** A turn that runs until `release()`: its first words at once, the rest when released. */
function heldTurn(text: string): { reply: ReturnType<typeof step>; release(): void } {
  let release = () => {};
  const hold = new Promise<void>((resolve) => (release = resolve));
  return { reply: step({ text, hold }), release };
}

const steps = (d: Device) => d.model.requests.filter((r) => isStep(r.body)).length;

const prompt = (link: Link, sessionId: string, text: string, turnId: string, timeoutMs = 20_000) =>
  link.request("session/prompt", { sessionId, prompt: [{ type: "text", text }], _meta: { lembas: { turnId } } }, timeoutMs) as Promise<PromptResult>;

const isAnnounce = (sessionId: string) => (n: RpcNotification) => n.method === "_lembas/session/announce" && (n.params as { sessionId: string }).sessionId === sessionId;

/** The first text event of a session on the link from `from` on: its turn is running. */
const textStarted = (link: Link, sessionId: string, from: number) =>
  link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { sessionId: string; event: { type: string } }).sessionId === sessionId && (n.params as { event: { type: string } }).event.type === "text", 10_000, from);

/** The file's one service, with the test's own model and project (work/project-N). */
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});

/**
 * The file's one service, for a test that neither kills it nor needs it started with an env of its
 * own, and the terminal open in the test's project sharing its session. The link carries the
 * earlier tests' notifications too: what the test waits for it picks by session.
 */
async function terminalOnSharedService(): Promise<{ d: Device; link: Link; screen: Screen; sessionId: string }> {
  const { s, sessionId } = await terminalOnService(shared, (opened) => (screen = opened));
  return { d: shared.d, link: shared.link, screen: s, sessionId };
}

const leftOf = (sessionId: string) => (n: RpcNotification) => n.method === "_lembas/session/left" && (n.params as { sessionId: string }).sessionId === sessionId;

/** A device of the test's own serving one link (its service started with `env`), and the terminal open in its project sharing its session. */
async function sharedTerminal(env: Record<string, string> = {}): Promise<{ d: Device; link: Link; screen: Screen; sessionId: string }> {
  const d = await startDevice();
  device = d;
  const link = await d.serve({ env });
  screen = await openScreen(d.box, { cwd: d.project });
  await screen.waitFor("test/test-model");
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  return { d, link, screen, sessionId: announce.sessionId };
}

describe.skipIf(!HAVE_TMUX)("a session moving between the service and a terminal", () => {
  test("lembas -r of a session the web opened at the service: its turn finishes there, the terminal holds it, the queued prompt follows", async () => {
    const { d, link } = shared;
    const sessionId = await newSession(link, d.project);
    const long = heldTurn("a long answer, finished at the service");
    d.model.push(long.reply, step({ text: "the queued one, answered in the terminal" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "a long one", "move-1", 30_000);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "the queued one", "move-2", 30_000);
    await Bun.sleep(200);
    const s = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screen = s;
    await s.waitFor("waiting for the web's turn to finish", 10_000);
    long.release();
    // Finished, not cancelled: the terminal waited for it.
    expect(await first).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "move-1" } } });
    await link.waitForNotification(isAnnounce(sessionId), 15_000, from);
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "move-2" } } });
    await s.waitFor("the queued one, answered in the terminal");
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("terminal");
    expect(steps(d)).toBe(2);
    // The terminal's own prompt runs there too.
    d.model.push(step({ text: "typed here" }));
    await s.type("from the keyboard", "Enter");
    await s.waitFor("typed here");
  }, 60_000);

  test("quitting while the service finishes the web's turn: the terminal ends at once, and the session stays the web's", async () => {
    const d = await startDevice();
    device = d;
    // A move's wait made far longer than the prompt's 20 s: a prompt held for a terminal would fail.
    const link = await d.serve({ env: { LEMBAS_TEST_MOVE_WAIT_MS: "600000" } });
    const sessionId = await newSession(link, d.project);
    const long = heldTurn("a long answer");
    d.model.push(long.reply, step({ text: "still answered at the service" }));
    const from = link.notifications.length;
    let finished = false;
    const first = prompt(link, sessionId, "a long one", "wait-1", 40_000).finally(() => (finished = true));
    await textStarted(link, sessionId, from);
    const s = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screen = s;
    await s.waitFor("waiting for the web's turn to finish", 10_000);
    await s.type("C-d");
    await s.exited(30_000);
    // An order, not a clock: the terminal was gone while the web's turn still ran.
    expect(finished).toBe(false);
    long.release();
    expect(await first).toMatchObject({ stopReason: "end_turn" });
    // The move came to nothing: the next prompt runs at the service, with no wait for a terminal.
    expect(await prompt(link, sessionId, "next", "wait-2")).toMatchObject({ stopReason: "end_turn" });
    const events = lembasEvents(link, sessionId, from);
    expect(events.filter((e) => e.type === "text").map((e) => e.delta).join("")).toContain("still answered at the service");
    expect(link.notifications.slice(from).some(isAnnounce(sessionId))).toBe(false);
  }, 60_000);

  test("/resume of a session the web opened at the service moves it to the terminal, and the web's next prompt runs there", async () => {
    const { d, link, screen: s } = await terminalOnSharedService();
    const sessionId = await newSession(link, d.project);
    d.model.push(step({ text: "said at the service" }));
    await prompt(link, sessionId, "one", "resume-1");
    const from = link.notifications.length;
    await s.type(`/resume ${sessionId}`, "Enter");
    await link.waitForNotification(isAnnounce(sessionId), 15_000, from);
    await s.waitFor("said at the service");
    d.model.push(step({ text: "said in the terminal" }));
    expect(await prompt(link, sessionId, "two", "resume-2")).toMatchObject({ stopReason: "end_turn" });
    await s.waitFor("said in the terminal");
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("terminal");
  }, 40_000);

  test("lembas -r of a session whose holder died, with no service running: it opens (recovered)", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const sessionId = await newSession(link, d.project);
    d.model.push(step({ text: "before the crash" }));
    await prompt(link, sessionId, "one", "dead-1");
    expect(await d.kill("SIGKILL")).not.toBe(0);
    const s = await openScreen(d.box, { cwd: d.project, args: ["-r", sessionId] });
    screen = s;
    await s.waitFor("before the crash");
    d.model.push(step({ text: "after the crash" }));
    await s.type("two", "Enter");
    await s.waitFor("after the crash");
  }, 40_000);

  test("after the terminal lets go, the next web prompt opens the session at the service from the store", async () => {
    const { d, link, screen: s, sessionId } = await terminalOnSharedService();
    d.model.push(step({ text: "in the terminal" }));
    await prompt(link, sessionId, "one", "back-1");
    await s.waitFor("in the terminal");
    const from = link.notifications.length;
    await s.type("C-d");
    expect(await s.exited()).toBe(0);
    await link.waitForNotification(leftOf(sessionId), 10_000, from);
    d.model.push(step({ text: "at the service" }));
    expect(await prompt(link, sessionId, "two", "back-2")).toMatchObject({ stopReason: "end_turn" });
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("here");
    const history = (await link.request("_lembas/session/history", { sessionId })) as { turns: unknown[] };
    expect(JSON.stringify(history.turns)).toContain("in the terminal");
    expect(JSON.stringify(history.turns)).toContain("at the service");
  }, 40_000);

  test("the terminal killed -9 mid web turn: left, and the same turnId sent to the service is not run again", async () => {
    const { d, link, screen: s, sessionId } = await terminalOnSharedService();
    d.model.push(slow(200, 25));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "kill-t-1").catch((error: Error) => error);
    await textStarted(link, sessionId, from);
    process.kill(s.pid(), "SIGKILL");
    expect(await first).toBeInstanceOf(Error);
    const left = await link.waitForNotification(leftOf(sessionId), 10_000, from);
    expect(left.params).toEqual({ sessionId, available: true });
    const again = await prompt(link, sessionId, "long", "kill-t-1");
    expect(again).toMatchObject({ stopReason: "cancelled", _meta: { lembas: { turnId: "kill-t-1" } } });
    expect(steps(d)).toBe(1);
    // The session goes on at the service.
    d.model.push(step({ text: "next" }));
    expect(await prompt(link, sessionId, "next", "kill-t-2")).toMatchObject({ stopReason: "end_turn" });
    expect(steps(d)).toBe(2);
  }, 40_000);

  test("the service killed -9 mid turn: after a restart the same turnId is answered from the store, not run again", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const sessionId = await newSession(link, d.project);
    d.model.push(slow(200, 25));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "kill-s-1").catch((error: Error) => error);
    await textStarted(link, sessionId, from);
    await d.kill("SIGKILL");
    expect(await first).toBeInstanceOf(Error);
    const again = await d.serve();
    const answer = await prompt(again, sessionId, "long", "kill-s-1");
    expect(answer).toMatchObject({ stopReason: "cancelled", _meta: { lembas: { turnId: "kill-s-1" } } });
    expect(steps(d)).toBe(1);
  }, 40_000);

  test("a terminal that stops answering: the web prompt fails after the bound with 'the terminal is not answering'; after SIGCONT it works", async () => {
    const { d, link, screen: s, sessionId } = await sharedTerminal({ LEMBAS_TERMINAL_ANSWER_MS: "500" });
    stopped = s.pid();
    process.kill(stopped, "SIGSTOP");
    // The bound cut to 0.5 s; the error says it was reached (a prompt that waited on would fail at its 20 s instead).
    const error = await prompt(link, sessionId, "anyone there", "stop-1").catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain("the terminal is not answering");
    process.kill(stopped, "SIGCONT");
    stopped = null;
    d.model.push(step({ text: "the first, late" }), step({ text: "awake again" }));
    expect(await prompt(link, sessionId, "and now", "stop-2")).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "stop-2" } } });
    await s.waitFor("awake again");
  }, 40_000);

  test("a long turn in a terminal that answers is not cut by the bound", async () => {
    const { d, link, sessionId } = await sharedTerminal({ LEMBAS_TERMINAL_ANSWER_MS: "600" });
    // A turn of 1 s, longer than the bound.
    d.model.push(slow(40, 25));
    expect(await prompt(link, sessionId, "take your time", "long-1")).toMatchObject({ stopReason: "end_turn" });
  }, 30_000);

  test("web prompts queued in a terminal that quits are run by the service", async () => {
    const { d, link, screen: s, sessionId } = await terminalOnSharedService();
    d.model.push(slow(200, 25), step({ text: "run at the service" }));
    const from = link.notifications.length;
    const first = prompt(link, sessionId, "long", "quit-1", 30_000).catch((error: Error) => error);
    await textStarted(link, sessionId, from);
    const second = prompt(link, sessionId, "queued", "quit-2", 30_000);
    await Bun.sleep(300);
    await s.type("C-d");
    // A web prompt runs here: quitting asks first.
    await s.waitFor("Quit and interrupt it");
    await s.type("Down", "Enter");
    expect(await s.exited()).toBe(0);
    expect(await second).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "quit-2" } } });
    const events = lembasEvents(link, sessionId, from);
    expect(events.filter((e) => e.type === "text").map((e) => e.delta).join("")).toContain("run at the service");
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("here");
    expect(steps(d)).toBe(2);
    await first;
  }, 40_000);
});
