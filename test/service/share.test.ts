/**
 * Sharing a terminal's session with the web, end to end: the real `lembas serve` linked to the
 * simulated instance, the real terminal in tmux with the same config and state dirs, its project
 * inside remote.roots (and trusted). The instance hears the announce, prompts the session and gets
 * its events and answer (the terminal runs the turn and shows it), status says the terminal holds
 * it, and quitting the terminal says left, available.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Device, lembasEvents, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link, RpcNotification } from "../support/instance.ts";
import type { ScriptedModel } from "../support/model.ts";
import { digitOf } from "../support/screens.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

/** A device a test started for itself (closed after it), and the terminal it opened. */
let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});
/** The file's one service, with the test's own model and project (work/project-N). */
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});

type Announce = { sessionId: string; cwd: string; title: string; model: string | null; instance: boolean; mode: string; effort: string; busy: boolean; origin: string };

/** The shared service's link, and the terminal open in the test's project; the announce the link heard of it. */
async function sharedTerminal(args: string[] = []): Promise<{ d: Device; link: Link; model: ScriptedModel; project: string; screen: Screen; announce: Announce }> {
  const { d, link, model, project } = shared;
  const from = link.notifications.length;
  screen = await openScreen(d.box, { cwd: project, args });
  await screen.waitFor("test/test-model");
  const announce = (await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as Announce).cwd === project, 15_000, from)).params as Announce;
  return { d, link, model, project, screen, announce };
}

/** A notification of `method` about the session `sessionId`: the shared link carries the earlier tests' too. */
const ofSession = (method: string, sessionId: string) => (n: RpcNotification) => n.method === method && (n.params as { sessionId?: string }).sessionId === sessionId;

describe.skipIf(!HAVE_TMUX)("a terminal's session shared through the service", () => {
  test("the instance hears announce for the terminal's session, with what the terminal says of it", async () => {
    const { project, announce } = await sharedTerminal();
    expect(announce).toMatchObject({ cwd: project, model: "test/test-model", instance: false, busy: false, origin: "terminal" });
    expect(announce.sessionId).toMatch(/^ses_/);
    expect(typeof announce.mode).toBe("string");
    expect(typeof announce.effort).toBe("string");
  });

  test("a prompt from the web runs in the terminal: its events and answer come back with the turnId, the terminal shows it", async () => {
    const { model, link, screen: s, announce } = await sharedTerminal();
    const { sessionId } = announce;
    model.push(step({ text: "answered for the web" }));
    const from = link.notifications.length;
    const result = (await link.request(
      "session/prompt",
      { sessionId, prompt: [{ type: "text", text: "hello from the web" }], _meta: { lembas: { turnId: "web-turn-1" } } },
      20_000,
    )) as { stopReason: string; _meta: { lembas: { turnId: string } } };
    expect(result.stopReason).toBe("end_turn");
    expect(result._meta.lembas.turnId).toBe("web-turn-1");
    const events = lembasEvents(link, sessionId, from);
    expect(events.find((e) => e.type === "prompt")).toMatchObject({ text: "hello from the web", turnId: "web-turn-1" });
    expect(events.filter((e) => e.type === "text").map((e) => e.delta).join("")).toBe("answered for the web");
    const chunks = link.notifications
      .slice(from)
      .filter((n) => n.method === "session/update")
      .map((n) => n.params as { sessionId: string; update: { sessionUpdate: string; content?: { text?: string } } })
      .filter((p) => p.sessionId === sessionId && p.update.sessionUpdate === "agent_message_chunk");
    expect(chunks.map((c) => c.update.content?.text ?? "").join("")).toBe("answered for the web");
    await s.waitFor("› hello from the web");
    await s.waitFor("answered for the web");
    // The terminal says where the prompt came from; its own prompts say nothing of the kind.
    expect(s.text()).toMatch(/› hello from the web\n\s+sent from the web/);
    model.push(step({ text: "answered here" }));
    await s.type("typed here", "Enter");
    await s.waitFor("answered here");
    expect(s.text()).not.toMatch(/› typed here\n\s+sent from the web/);

    // History comes from the store: the web's turn is in it.
    const history = (await link.request("_lembas/session/history", { sessionId })) as { turns: unknown[] };
    expect(JSON.stringify(history.turns)).toContain("hello from the web");
  });

  test("_lembas/session/status says the terminal holds the session", async () => {
    const { link, announce } = await sharedTerminal();
    const status = (await link.request("_lembas/session/status", { sessionId: announce.sessionId })) as { held: string; exists: boolean; busy: boolean };
    expect(status).toMatchObject({ exists: true, held: "terminal", busy: false });
  });

  test("quitting the terminal says left, available: the service can open it from the store", async () => {
    const { model, link, screen: s, announce } = await sharedTerminal();
    const { sessionId } = announce;
    model.push(step({ text: "kept" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "remember this" }], _meta: { lembas: { turnId: "web-turn-2" } } }, 20_000);
    await s.waitFor("kept");
    const from = link.notifications.length;
    await s.type("C-d");
    expect(await s.exited()).toBe(0);
    const left = await link.waitForNotification(ofSession("_lembas/session/left", sessionId), 10_000, from);
    expect(left.params).toEqual({ sessionId, available: true });
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("none");
  });

  test("a card in a web-driven turn is shown at the terminal, and the terminal's answer lets the turn go on", async () => {
    const { model, project, link, screen: s, announce } = await sharedTerminal();
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo web > web.txt" } }] }), step({ text: "made it" }));
    const from = link.notifications.length;
    const answer = link.request("session/prompt", { sessionId: announce.sessionId, prompt: [{ type: "text", text: "make web.txt" }], _meta: { lembas: { turnId: "web-turn-3" } } }, 20_000);
    await s.waitFor("Yes, once");
    await s.type(digitOf(s, "Yes, once"));
    expect(((await answer) as { _meta: { lembas: { turnId: string } } })._meta.lembas.turnId).toBe("web-turn-3");
    await s.waitFor("made it");
    expect(existsSync(join(project, "web.txt"))).toBe(true);
    // The web had the card too (patient); answered at the terminal, it was taken down there.
    const card = link.requests.find((r) => r.method === "session/request_permission" && (r.params as { sessionId: string }).sessionId === announce.sessionId);
    expect(card?.params).toMatchObject({ _meta: { lembas: { patient: true } } });
    await link.waitForNotification(ofSession("_lembas/permission/settled", announce.sessionId), 5000, from);
  });

  test("a web prompt runs at most in remote.max_mode even when the terminal's session runs above it", async () => {
    // The terminal works in auto (commands run without asking); the device lets the web go up to edit.
    const { model, project, link, screen: s, announce } = await sharedTerminal(["--mode", "auto"]);
    expect(announce.mode).toBe("auto");
    model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo capped > capped.txt" } }] }), step({ text: "asked first" }));
    const answer = link.request("session/prompt", { sessionId: announce.sessionId, prompt: [{ type: "text", text: "run it" }], _meta: { lembas: { turnId: "web-turn-cap" } } }, 20_000);
    await s.waitFor("Yes, once");
    expect(existsSync(join(project, "capped.txt"))).toBe(false);
    await s.type(digitOf(s, "Yes, once"));
    await answer;
    await s.waitFor("asked first");
    expect(existsSync(join(project, "capped.txt"))).toBe(true);
    // The session itself stays in auto: only the web's turn was capped.
    await s.waitFor("test/test-model · auto");
  });

  test("the service restarted: the terminal says hello again and shares again, and the new link hears announce", async () => {
    // A device of its own: its service is stopped and started again.
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    screen = await openScreen(d.box, { cwd: d.project });
    await screen.waitFor("test/test-model");
    const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
    expect(await d.kill("SIGTERM")).toBe(0);
    const again = await d.serve();
    const second = (await again.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
    expect(second.sessionId).toBe(announce.sessionId);
    const status = (await again.request("_lembas/session/status", { sessionId: second.sessionId })) as { held: string };
    expect(status.held).toBe("terminal");
  });

  test("a terminal whose directory is outside remote.roots is not shared", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    const elsewhere = join(d.box.dir, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    screen = await openScreen(d.box, { cwd: elsewhere });
    await screen.waitFor("test/test-model");
    await Bun.sleep(1500);
    expect(link.notifications.some((n) => n.method === "_lembas/session/announce")).toBe(false);
  });

  test("/new: the session left is left (available, it had a turn) and the new one is announced", async () => {
    const { model, project, link, screen: s, announce } = await sharedTerminal();
    model.push(step({ text: "first" }));
    await link.request("session/prompt", { sessionId: announce.sessionId, prompt: [{ type: "text", text: "one" }], _meta: { lembas: { turnId: "web-turn-4" } } }, 20_000);
    await s.waitFor("first");
    const from = link.notifications.length;
    await s.type("/new", "Enter");
    const left = await link.waitForNotification(ofSession("_lembas/session/left", announce.sessionId), 10_000, from);
    expect(left.params).toEqual({ sessionId: announce.sessionId, available: true });
    const next = (await link.waitForNotification((n) => n.method === "_lembas/session/announce" && (n.params as Announce).cwd === project, 10_000, from)).params as Announce;
    expect(next.sessionId).not.toBe(announce.sessionId);
    // The one left is not the terminal's any more: a prompt for it is not routed there.
    const status = (await link.request("_lembas/session/status", { sessionId: announce.sessionId })) as { held: string };
    expect(status.held).toBe("none");
  });

  test("session/cancel from the web stops the terminal's turn: the answer says cancelled, with its turnId", async () => {
    const { model, link, screen: s, announce } = await sharedTerminal();
    const { sessionId } = announce;
    model.push(step({ text: "a long answer ".repeat(200), chunkDelayMs: 20 }));
    const from = link.notifications.length;
    const answer = link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk a while" }], _meta: { lembas: { turnId: "web-turn-5" } } }, 20_000);
    await link.waitForNotification((n) => ofSession("_lembas/event", sessionId)(n) && (n.params as { event: { type: string } }).event.type === "text", 10_000, from);
    link.notify("session/cancel", { sessionId });
    const result = (await answer) as { stopReason: string; _meta: { lembas: { turnId: string } } };
    expect(result).toMatchObject({ stopReason: "cancelled", _meta: { lembas: { turnId: "web-turn-5" } } });
    await s.waitFor("talk a while");
  });

  test("the terminal killed -9: its IPC drops and the link hears left, available (its pid is gone)", async () => {
    const { model, link, screen: s, announce } = await sharedTerminal();
    model.push(step({ text: "saved" }));
    await link.request("session/prompt", { sessionId: announce.sessionId, prompt: [{ type: "text", text: "keep it" }], _meta: { lembas: { turnId: "web-turn-6" } } }, 20_000);
    const from = link.notifications.length;
    process.kill(s.pid(), "SIGKILL");
    const left = await link.waitForNotification(ofSession("_lembas/session/left", announce.sessionId), 10_000, from);
    expect(left.params).toEqual({ sessionId: announce.sessionId, available: true });
  });
});
