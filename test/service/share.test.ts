/**
 * Sharing a terminal's session with the web, end to end: the real `lembas serve` linked to the
 * simulated instance, the real terminal in tmux with the same config and state dirs, its project
 * inside remote.roots (and trusted). The instance hears the announce, prompts the session and gets
 * its events and answer (the terminal runs the turn and shows it), status says the terminal holds
 * it, and quitting the terminal says left, available.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Device, lembasEvents, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

type Announce = { sessionId: string; cwd: string; title: string; model: string | null; instance: boolean; mode: string; effort: string; busy: boolean; origin: string };

/** A device serving one link, and the terminal open in its project; the announce the link heard. */
async function sharedTerminal(): Promise<{ d: Device; link: Link; screen: Screen; announce: Announce }> {
  const d = await startDevice();
  device = d;
  const link = await d.serve();
  screen = await openScreen(d.box, { cwd: d.project });
  await screen.waitFor("test/test-model");
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as Announce;
  return { d, link, screen, announce };
}

describe.skipIf(!HAVE_TMUX)("a terminal's session shared through the service", () => {
  test("the instance hears announce for the terminal's session, with what the terminal says of it", async () => {
    const { d, announce } = await sharedTerminal();
    expect(announce).toMatchObject({ cwd: d.project, model: "test/test-model", instance: false, busy: false, origin: "terminal" });
    expect(announce.sessionId).toMatch(/^ses_/);
    expect(typeof announce.mode).toBe("string");
    expect(typeof announce.effort).toBe("string");
  });

  test("a prompt from the web runs in the terminal: its events and answer come back with the turnId, the terminal shows it", async () => {
    const { d, link, screen: s, announce } = await sharedTerminal();
    const { sessionId } = announce;
    d.model.push(step({ text: "answered for the web" }));
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
    const { d, link, screen: s, announce } = await sharedTerminal();
    const { sessionId } = announce;
    d.model.push(step({ text: "kept" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "remember this" }], _meta: { lembas: { turnId: "web-turn-2" } } }, 20_000);
    await s.waitFor("kept");
    const from = link.notifications.length;
    await s.type("C-d");
    expect(await s.exited()).toBe(0);
    const left = await link.waitForNotification("_lembas/session/left", 10_000, from);
    expect(left.params).toEqual({ sessionId, available: true });
    const status = (await link.request("_lembas/session/status", { sessionId })) as { held: string };
    expect(status.held).toBe("none");
  });
});
