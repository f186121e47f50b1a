import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listTurns } from "../../src/store/turns.ts";
import { type Device, LEMBAS_INIT, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { runLembas } from "../support/run.ts";

let d: Device;
/** Releases the test's held replies, if it left one held. */
let releaseHeld = () => {};
afterEach(async () => {
  releaseHeld();
  await d.close();
});

const newSession = async (link: Link, d: Device) =>
  ((await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string }).sessionId;

const waitUntil = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(25);
  }
};

const WORDS = Array.from({ length: 12 }, (_, i) => `word${i} `);
/** A turn under way until the test releases it (or the service goes): its first word at once, the rest then. */
const heldReply = () => {
  const hold = new Promise<void>((resolve) => (releaseHeld = resolve));
  return step({ text: WORDS, hold });
};

describe("the link drops and comes back", () => {
  test("mid-turn: the turn goes on, the device redials, status follows it, and re-sending the turn id does not run it twice", async () => {
    d = await startDevice();
    const link = await d.serve();
    d.model.push(heldReply());
    const sessionId = await newSession(link, d);
    const prompt = { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "turn-x" } } };
    void link.request("session/prompt", prompt, 20_000).catch(() => {});
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
    await link.close(1011, "instance restarting");

    const again = await d.instance.waitForLink(10_000);
    await again.hello;
    await again.request("initialize", LEMBAS_INIT);
    const status = (await again.request("_lembas/session/status", { sessionId })) as { held: string; turnId?: string; lastTurnId?: string };
    expect(status.held).toBe("here");
    expect(status.turnId ?? status.lastTurnId).toBe("turn-x");
    releaseHeld();
    const answer = await again.request("session/prompt", prompt, 20_000);
    expect(answer).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: "turn-x" } } });
    expect(d.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
    const history = (await again.request("_lembas/session/history", { sessionId })) as { turns: { role: string; text: string }[] };
    expect(history.turns.at(-1)?.text).toBe(WORDS.join(""));
  }, 30_000);

  test("the service killed with -9 mid-turn and restarted: the store is consistent and status says the turn is done", async () => {
    d = await startDevice();
    const link = await d.serve();
    d.model.push(heldReply());
    const sessionId = await newSession(link, d);
    void link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "turn-k" } } }).catch(() => {});
    await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
    await d.kill("SIGKILL");

    const again = await d.serve();
    const status = await again.request("_lembas/session/status", { sessionId });
    expect(status).toMatchObject({ exists: true, held: "none", busy: false, lastTurnId: "turn-k" });
    const db = openDb(join(d.box.stateDir, "lembas.db"));
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    expect(listTurns(db, sessionId)).toEqual([expect.objectContaining({ turnId: "turn-k", state: "done", answer: expect.objectContaining({ interrupted: true }) })]);
    db.close();
    // The session goes on from the store on the new link.
    d.model.push(step({ text: "back again" }));
    const next = await again.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] }, 20_000);
    expect(next).toMatchObject({ stopReason: "end_turn" });
  }, 30_000);
});

describe("the instance says no", () => {
  test("close 4400 stops the link for good, with the sentence", async () => {
    d = await startDevice();
    const link = await d.serve();
    await link.close(4400, "protocol");
    await waitUntil(() => d.log().includes("different link protocols"));
    const dials = d.instance.dials.length;
    await Bun.sleep(1500);
    expect(d.instance.dials.length).toBe(dials);
    const status = await runLembas(d.box, ["status"]);
    expect(status.stdout).toContain("stopped: the instance and this CLI speak different link protocols — update one of them");
  }, 20_000);

  test("close 4401 (the token revoked while linked) stops the link with the same sentence", async () => {
    d = await startDevice();
    const link = await d.serve();
    await link.close(4401, "token revoked");
    await waitUntil(() => d.log().includes("log in again"));
    const dials = d.instance.dials.length;
    await Bun.sleep(1500);
    expect(d.instance.dials.length).toBe(dials);
  }, 20_000);

  test("a rejected token stops the link with a sentence telling the person to log in again", async () => {
    d = await startDevice();
    const link = await d.serve();
    d.instance.setToken("a-new-token");
    await link.close(1011);
    await waitUntil(() => d.log().includes("log in again"));
    const status = await runLembas(d.box, ["status"]);
    expect(status.stdout).toContain("stopped: the instance rejected the device token: log in again with lembas login");
    expect(d.log()).not.toContain("device-token-0123456789");
  }, 20_000);
});

test("a delete made while no link is up reaches the client after the next initialize, once", async () => {
  d = await startDevice();
  const link = await d.serve();
  const sessionId = await newSession(link, d);
  expect(await d.kill("SIGTERM")).toBe(0);
  const deleted = await runLembas(d.box, ["sessions", "delete", sessionId]);
  expect(deleted).toMatchObject({ code: 0 });
  const next = await d.serve();
  const note = await next.waitForNotification("_lembas/session/deleted");
  expect(note.params).toEqual({ sessionId });
  await d.kill("SIGTERM");
  const third = await d.serve();
  await Bun.sleep(300);
  expect(third.notifications.some((n) => n.method === "_lembas/session/deleted")).toBe(false);
}, 30_000);

test("SIGTERM: running turns are cancelled, the link closed, exit 0", async () => {
  d = await startDevice();
  const link = await d.serve();
  d.model.push(heldReply());
  const sessionId = await newSession(link, d);
  void link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }], _meta: { lembas: { turnId: "turn-t" } } }).catch(() => {});
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text");
  expect(await d.kill("SIGTERM")).toBe(0);
  expect((await link.closed).code).toBe(1001);
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  expect(listTurns(db, sessionId)).toEqual([expect.objectContaining({ turnId: "turn-t", state: "done", answer: expect.objectContaining({ stopReason: "cancelled" }) })]);
  db.close();
}, 30_000);

test("lembas status and lembas service status read the running service's control socket", async () => {
  d = await startDevice();
  const link = await d.serve();
  const sessionId = await newSession(link, d);
  const status = await runLembas(d.box, ["status"]);
  expect(status.stdout).toContain(`inst  ${d.instance.url}  connected since`);
  expect(status.stdout).toContain(`  ${sessionId}`);
  expect(status.stdout).toMatch(/service: running \(pid \d+/);
  const service = await runLembas(d.box, ["service", "status"]);
  expect(service.stdout).toContain("inst");
  expect(service.stdout).toContain("connected");
}, 30_000);

test("keepalive: an instance that stops answering pings is given up on and redialled", async () => {
  d = await startDevice();
  const link = await d.serve({ env: { LEMBAS_LINK_KEEPALIVE: "200,300" } });
  link.pause();
  await waitUntil(() => d.log().includes("no pong"), 10_000);
  const again = await d.instance.waitForLink(10_000);
  expect(await again.hello).toMatchObject({ protocol: 2 });
}, 30_000);

test("a delete made from a shell while the link is up reaches the client within seconds", async () => {
  d = await startDevice();
  const link = await d.serve();
  d.model.push(step({ text: "hi" }));
  const run = await runLembas(d.box, ["run", "--format", "json", "hello"], { cwd: d.project });
  const sessionId = (JSON.parse(run.stdout.split("\n")[0] ?? "{}") as { id: string }).id;
  expect(sessionId).toStartWith("ses_");
  expect((await runLembas(d.box, ["sessions", "delete", sessionId])).code).toBe(0);
  const note = await link.waitForNotification("_lembas/session/deleted", 10_000);
  expect(note.params).toEqual({ sessionId });
}, 30_000);
