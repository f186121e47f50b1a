/**
 * /compact can be stopped: a session/cancel while its summary is being made stops the summary
 * call, nothing is kept, and the session is free again.
 */
import { afterEach, expect, test } from "bun:test";
import { type Device, lembasEvents, linkedSession } from "../support/device.ts";
import { isSummary, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { rpcError } from "../support/rpc.ts";

let d: Device | null = null;
afterEach(async () => {
  await d?.close();
  d = null;
});

/** Waits until the model has been asked for `n` summaries. */
async function summariesAsked(device: Device, n: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (device.model.requests.filter((r) => isSummary(r.body)).length < n) {
    if (Date.now() > end) throw new Error(`the model was not asked for ${n} summaries`);
    await Bun.sleep(20);
  }
}

async function withHistory(): Promise<{ link: Link; sessionId: string }> {
  const made = await linkedSession();
  d = made.d;
  made.d.model.push(step({ text: "an answer worth summarising" }));
  await made.link.request("session/prompt", { sessionId: made.sessionId, prompt: [{ type: "text", text: "hello" }] }, 20_000);
  return made;
}

test("a session/cancel during /compact stops it: the answer says cancelled, nothing is compacted, and the session is free", async () => {
  const { link, sessionId } = await withHistory();
  const device = d as Device;
  device.model.push({ match: isSummary, fail: "hang" });
  const answer = link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compact" }], _meta: { lembas: { turnId: "compact-1" } } }, 20_000);
  await summariesAsked(device, 1);
  expect(await link.request("_lembas/session/status", { sessionId })).toMatchObject({ busy: true });
  link.notify("session/cancel", { sessionId });
  expect(await answer).toMatchObject({ stopReason: "cancelled", _meta: { lembas: { turnId: "compact-1", command: "compact" } } });
  expect(lembasEvents(link, sessionId).filter((e) => e.type === "compacted")).toEqual([]);
  expect(await link.request("_lembas/session/status", { sessionId })).toMatchObject({ busy: false });

  // Asked again, it compacts.
  device.model.push({ match: isSummary, text: "the summary" });
  const again = (await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compact" }] }, 20_000)) as { stopReason: string; _meta: { lembas: { summary: string } } };
  expect(again).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { summary: "the summary" } } });
}, 40_000);

test("a session/cancel during _lembas/session/compact stops it with a sentence; a later compact works", async () => {
  const { link, sessionId } = await withHistory();
  const device = d as Device;
  device.model.push({ match: isSummary, fail: "hang" });
  const compact = rpcError(link.request("_lembas/session/compact", { sessionId }, 20_000));
  await summariesAsked(device, 1);
  link.notify("session/cancel", { sessionId });
  expect(await compact).toMatchObject({ code: -32602, message: expect.stringContaining("the compaction was cancelled: the conversation is as it was") });
  device.model.push({ match: isSummary, text: "the summary" });
  expect(await link.request("_lembas/session/compact", { sessionId }, 20_000)).toEqual({ summary: "the summary" });
}, 40_000);
