/**
 * A shared session's cards answered from both sides: Ctrl-C at the terminal, a link that never
 * answers and goes, answers to cards never asked.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { digitOf } from "../support/screens.ts";
import { ofSession, prompt, shareSuite, steps } from "../support/share-suite.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

// The tests share one service, but the one whose link goes.
const share = shareSuite({ oneService: true });

describe.skipIf(!HAVE_TMUX)("a shared session's cards", () => {
  test("Ctrl-C on the card of a web turn at the terminal: the turn is interrupted, the web's card is settled and its late answer runs nothing", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    let answerCard: (result: unknown) => void = () => {};
    link.onRequest("session/request_permission", () => new Promise((resolve) => (answerCard = resolve)));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > late.txt" } }] }), step({ text: "should not run" }));
    const from = link.notifications.length;
    const asked = link.requests.length;
    const answer = prompt(link, sessionId, "make it", "ctrlc-1", 30_000).catch((e: Error) => e);
    await link.waitForRequest("session/request_permission", 10_000, asked);
    await s.waitFor("Yes, once");
    await s.type("C-c");
    await link.waitForNotification(ofSession("_lembas/permission/settled", sessionId), 5000, from);
    const result = await answer;
    if (!(result instanceof Error)) expect(result.stopReason).toBe("cancelled");
    answerCard({ outcome: { outcome: "selected", optionId: "once" } });
    await Bun.sleep(800);
    expect(existsSync(join(d.project, "late.txt"))).toBe(false);
    expect(steps(d)).toBe(1);
  }, 40_000);

  test("a link that never answers a patient card and disconnects: the terminal answers it, the turn goes on; the next link is not given it", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal({ own: true });
    link.onRequest("session/request_permission", () => new Promise(() => {}));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > kept.txt" } }] }), step({ text: "went on" }));
    void prompt(link, sessionId, "make it", "gone-1", 30_000).catch(() => {});
    await link.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    await link.close();
    await Bun.sleep(500);
    await s.type(digitOf(s, "Yes, once"));
    await s.waitFor("went on");
    expect(existsSync(join(d.project, "kept.txt"))).toBe(true);
    const next = await d.instance.waitForLink(15_000);
    await next.hello;
    await next.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: { protocol: 2 } } } });
    await next.waitForNotification(ofSession("_lembas/session/announce", sessionId), 10_000);
    await Bun.sleep(500);
    expect(next.requests.some((r) => r.method === "session/request_permission")).toBe(false);
  }, 45_000);

  test("a link answering cards that were never asked (unknown ids, a card's id twice): dropped; the real card still waits and its answer counts", async () => {
    const { d, link, s, sessionId } = await share.sharedTerminal();
    let answerCard: (result: unknown) => void = () => {};
    link.onRequest("session/request_permission", () => new Promise((resolve) => (answerCard = resolve)));
    d.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > real.txt" } }] }), step({ text: "the real answer counted" }));
    const asked = link.requests.length;
    const answer = prompt(link, sessionId, "make it", "fake-card-1", 30_000);
    const card = await link.waitForRequest("session/request_permission", 10_000, asked);
    const once = { outcome: { outcome: "selected", optionId: "once" } };
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "lembas-card-00000000-0000-0000-0000-000000000000", result: once }));
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 987654, result: once }));
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: "lembas-card-x", error: { code: -32601, message: "no" } }));
    await Bun.sleep(500);
    expect(existsSync(join(d.project, "real.txt"))).toBe(false);
    await s.waitFor("Yes, once");
    answerCard(once);
    expect((await answer).stopReason).toBe("end_turn");
    // The same card's id answered again later: nothing more happens.
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: card.id, result: once }));
    await s.waitFor("the real answer counted");
    expect(existsSync(join(d.project, "real.txt"))).toBe(true);
    expect(steps(d)).toBe(2);
  }, 30_000);
});
