/**
 * A rewind in a terminal's session shared with the web is seen there: the web hears the session
 * event it reloads on, and the session's history answers the shortened conversation.
 */
import { describe, expect, test } from "bun:test";
import { lembasEvents } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { shareSuite } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const share = shareSuite();

describe.skipIf(!HAVE_TMUX)("a rewind in a shared session", () => {
  test("the web is told with a session event, and its history no longer has the turns rewound", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    d.model.push(step({ text: "answered for the web" }));
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "kept from the web" }], _meta: { lembas: { turnId: "web-rewind-1" } } }, 20_000);
    await s.waitFor("answered for the web");
    d.model.push(step({ text: "answered here" }));
    await s.type("typed here, then taken back", "Enter");
    await s.waitFor("answered here");
    const before = (await link.request("_lembas/session/history", { sessionId })) as { turns: unknown[] };
    expect(JSON.stringify(before.turns)).toContain("typed here, then taken back");

    const from = link.notifications.length;
    await s.type("/rewind 2 conversation", "Enter");
    await s.waitFor("rewound the conversation to before “typed here, then taken back”");
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "session", 10_000, from);
    expect(lembasEvents(link, sessionId, from).find((e) => e.type === "session")).toMatchObject({ id: sessionId });
    const after = (await link.request("_lembas/session/history", { sessionId })) as { turns: unknown[] };
    const told = JSON.stringify(after.turns);
    expect(told).toContain("kept from the web");
    expect(told).not.toContain("typed here, then taken back");
    expect(told).not.toContain("answered here");
  });
});
