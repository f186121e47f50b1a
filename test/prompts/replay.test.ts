import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listMessages } from "../../src/store/messages.ts";
import { getSession } from "../../src/store/sessions.ts";
import { listTurns } from "../../src/store/turns.ts";
import { type Device, lembasEvents, linkedSession, newSession, type ServiceTest, sharedServiceEach } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { rpcError } from "../support/rpc.ts";

/** The test's device, link and session: on the file's one service, or on a device of its own. */
let d: Device;
let link: Link;
let sessionId: string;
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});
/** A device the test started for itself: closed after it. */
let own: Device | null = null;
afterEach(async () => {
  await own?.close();
  own = null;
});

const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const image = { type: "image", data: png.toString("base64"), mimeType: "image/png", uri: "file:///home/me/shot.png" };
const steps = () => d.model.requests.filter((r) => isStep(r.body));
const modeEvents = () => lembasEvents(link, sessionId).filter((e) => e.type === "mode");
const attachments = () => readdirSync(join(d.box.stateDir, "attachments", sessionId));
const waitUntil = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(25);
  }
};

describe("a re-sent turn has no side effects", () => {
  beforeEach(async () => {
    ({ d, link } = shared);
    sessionId = await newSession(link, shared.project);
  });

  test("a finished /plan turn sent again gets its answer: the mode stays as the person set it, its image is not saved twice", async () => {
    d.model.push(step({ text: "here is a plan" }));
    const prompt = { sessionId, prompt: [{ type: "text", text: "/plan sketch the change" }, image], _meta: { lembas: { turnId: "plan-1" } } };
    const first = await link.request("session/prompt", prompt, 20_000);
    expect(first).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "plan-1", command: "plan" } } });
    expect(modeEvents().map((e) => e.mode)).toEqual(["plan"]);
    await link.request("session/set_mode", { sessionId, modeId: "edit" });
    await waitUntil(() => modeEvents().length === 2);

    expect(await link.request("session/prompt", prompt, 20_000)).toEqual(first);
    await Bun.sleep(100);
    expect(modeEvents().map((e) => e.mode)).toEqual(["plan", "edit"]);
    expect(attachments()).toHaveLength(1);
    expect(steps()).toHaveLength(1);
  });

  test("the same turn sent twice at once runs once, writes its upload once, and both get one answer", async () => {
    d.model.push(step({ text: Array.from({ length: 6 }, (_, i) => `w${i} `), chunkDelayMs: 50 }));
    const prompt = { sessionId, prompt: [{ type: "text", text: "what is this?" }, image], _meta: { lembas: { turnId: "twin" } } };
    const [a, b] = await Promise.all([link.request("session/prompt", prompt, 20_000), link.request("session/prompt", prompt, 20_000)]);
    expect(a).toEqual(b);
    expect(steps()).toHaveLength(1);
    expect(attachments()).toHaveLength(1);
  });

  test("a turn refused for a bad block is forgotten: the corrected prompt with the same turn id runs", async () => {
    const huge = { type: "image", data: Buffer.alloc(11 * 1024 * 1024).toString("base64"), mimeType: "image/png" };
    const bad = { sessionId, prompt: [{ type: "text", text: "look" }, huge], _meta: { lembas: { turnId: "fix-1" } } };
    expect(await rpcError(link.request("session/prompt", bad, 20_000))).toMatchObject({ code: -32602 });
    d.model.push(step({ text: "looked" }));
    const good = { sessionId, prompt: [{ type: "text", text: "look" }], _meta: { lembas: { turnId: "fix-1" } } };
    expect(await link.request("session/prompt", good, 20_000)).toMatchObject({ stopReason: "end_turn" });
    expect(steps()).toHaveLength(1);
  });
});

describe("a turn that never started is not lost", () => {
  // Each stops or kills its service: a device of its own.
  beforeEach(async () => {
    ({ d, link, sessionId } = await linkedSession());
    own = d;
  });

  const queuedNow = async () => ((await link.request("_lembas/session/status", { sessionId })) as { queued: string[] }).queued;
  const slow = () => step({ text: Array.from({ length: 40 }, (_, i) => `word${i} `), chunkDelayMs: 100 });

  test("the service stops with a turn still queued: the turn is forgotten, and sending it again runs it once", async () => {
    d.model.push(slow());
    void link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "run-1" } } }, 30_000).catch(() => {});
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
    const queued = { sessionId, prompt: [{ type: "text", text: "the waiting one" }], _meta: { lembas: { turnId: "wait-1" } } };
    void link.request("session/prompt", queued, 30_000).catch(() => {});
    await waitUntil(async () => queuedNow().then((q) => q.includes("wait-1")));
    await d.kill("SIGTERM");

    const db = openDb(join(d.box.stateDir, "lembas.db"));
    const turns = listTurns(db, sessionId);
    db.close();
    expect(turns.map((t) => t.turnId)).toEqual(["run-1"]);
    expect(turns[0]).toMatchObject({ state: "done" });

    const again = await d.serve();
    d.model.push(step({ text: "now it runs" }));
    expect(await again.request("session/prompt", queued, 20_000)).toMatchObject({ stopReason: "end_turn", _meta: { lembas: { turnId: "wait-1" } } });
    const check = openDb(join(d.box.stateDir, "lembas.db"));
    const texts = listMessages(check, sessionId).filter((m) => m.role === "user").map((m) => (m.body as { text: string }).text);
    check.close();
    expect(texts).toEqual(["talk", "the waiting one"]);
    expect(steps().filter((r) => JSON.stringify(r.body.messages).includes("the waiting one"))).toHaveLength(1);
  }, 40_000);

  test("a queued /plan turn that never ran leaves the session's mode as it was", async () => {
    d.model.push(slow());
    void link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "run-3" } } }, 30_000).catch(() => {});
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
    const plan = { sessionId, prompt: [{ type: "text", text: "/plan sketch the change" }], _meta: { lembas: { turnId: "plan-3" } } };
    void link.request("session/prompt", plan, 30_000).catch(() => {});
    await waitUntil(async () => queuedNow().then((q) => q.includes("plan-3")));
    expect(modeEvents()).toEqual([]);
    await d.kill("SIGTERM");
    const db = openDb(join(d.box.stateDir, "lembas.db"));
    const mode = getSession(db, sessionId)?.mode;
    db.close();
    expect(mode).toBe("edit");
  }, 40_000);

  test("the service killed with a turn queued: after the restart status does not know it, and the re-send runs it", async () => {
    d.model.push(slow());
    void link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "run-2" } } }, 30_000).catch(() => {});
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
    const queued = { sessionId, prompt: [{ type: "text", text: "queued then killed" }], _meta: { lembas: { turnId: "wait-2" } } };
    void link.request("session/prompt", queued, 30_000).catch(() => {});
    await waitUntil(async () => queuedNow().then((q) => q.includes("wait-2")));
    await d.kill("SIGKILL");

    const again = await d.serve();
    const status = (await again.request("_lembas/session/status", { sessionId })) as { queued: string[]; lastTurnId?: string };
    expect(status.queued).toEqual([]);
    expect(status.lastTurnId).toBe("run-2");
    d.model.push(step({ text: "ran" }));
    expect(await again.request("session/prompt", queued, 20_000)).toMatchObject({ stopReason: "end_turn" });
    const history = (await again.request("_lembas/session/history", { sessionId })) as { turns: { role: string; text: string; turnId?: string }[] };
    expect(history.turns.filter((t) => t.role === "user").map((t) => t.turnId)).toEqual(["run-2", "wait-2"]);
  }, 40_000);
});
