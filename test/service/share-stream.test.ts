/**
 * A fast stream in a terminal's shared session (the terminal's answer cleaned and cut a frame at a
 * time, its frames paced by their cost): the instance gets every chunk, in order, each delta once,
 * both as _lembas/event and as session/update, with the tool call and the paragraphs between them
 * where they came, and the turn's end last; the terminal's screen shows the answer's end.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Device, lembasEvents, startDevice } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
});

const CHUNKS = 6000;
/** Numbered words, a paragraph every 50, a code fence in the middle: any loss or swap shows. */
const reply = (tag: string) =>
  Array.from({ length: CHUNKS }, (_, i) => {
    if (i === CHUNKS / 2) return "\n\n```\ncode line\n\n";
    if (i === CHUNKS / 2 + 1) return "more code\n```\n\n";
    return i % 50 === 49 ? `${tag}${i}\n\n` : `${tag}${i} `;
  });

describe.skipIf(!HAVE_TMUX)("a fast stream in a terminal's shared session", () => {
  test("reaches the instance whole and in order, around a tool call, and the terminal shows its end", async () => {
    const d = await startDevice();
    device = d;
    const link = await d.serve();
    screen = await openScreen(d.box, { cwd: d.project });
    await screen.waitFor("test/test-model");
    const { sessionId } = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
    const before = reply("a");
    const after = reply("b");
    d.model.push(step({ text: before, toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }), step({ text: after }));
    const from = link.notifications.length;
    const result = (await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream" }], _meta: { lembas: { turnId: "fast-1" } } }, 60_000)) as {
      stopReason: string;
    };
    expect(result.stopReason).toBe("end_turn");
    const done = (n: { method: string; params?: unknown }) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "done";
    await link.waitForNotification(done, 10_000, from);

    const events = lembasEvents(link, sessionId, from);
    const kinds = events.map((e) => e.type).filter((t) => t === "text" || t === "tool_start" || t === "tool_end" || t === "done");
    // The first step's text, its tool call, the second step's text, the end: nothing swapped.
    const firstTool = kinds.indexOf("tool_start");
    expect(firstTool).toBeGreaterThan(0);
    expect(kinds.slice(0, firstTool).every((k) => k === "text")).toBe(true);
    expect(kinds.at(-1)).toBe("done");
    const texts = (list: typeof events) => list.filter((e) => e.type === "text").map((e) => String(e.delta)).join("");
    const toolAt = events.findIndex((e) => e.type === "tool_start");
    expect(texts(events.slice(0, toolAt))).toBe(before.join(""));
    expect(texts(events.slice(toolAt))).toBe(after.join(""));
    // Coalesced on the way (far fewer frames than chunks), never split into more.
    expect(events.filter((e) => e.type === "text").length).toBeLessThan(CHUNKS / 10);

    const updates = link.notifications
      .slice(from)
      .filter((n) => n.method === "session/update")
      .map((n) => n.params as { sessionId: string; update: { sessionUpdate: string; content?: { text?: string } } })
      .filter((p) => p.sessionId === sessionId && p.update.sessionUpdate === "agent_message_chunk");
    expect(updates.map((u) => u.update.content?.text ?? "").join("")).toBe(before.join("") + after.join(""));

    await screen.waitFor(`b${CHUNKS - 1}`, 15_000);
  }, 90_000);
});
