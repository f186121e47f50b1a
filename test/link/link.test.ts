import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Device, LEMBAS_INIT, lembasEvents, sharedServiceEach, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { afterHeader, runLembas } from "../support/run.ts";
import { rpcError } from "../support/rpc.ts";

let d: Device;
let link: Link;
/** A device the test started for itself: closed after it. */
let own: Device | null = null;
afterEach(async () => {
  await own?.close();
  own = null;
});


describe("hello and initialize", () => {
  test("protocol 2 to an instance that lists 2: hello first, then initialize with limits and the connection", async () => {
    d = own = await startDevice();
    link = await d.serve({ init: null });
    const hello = await link.hello;
    expect(link.headers.get("authorization")).toBe("Bearer device-token-0123456789");
    expect(link.messages[0]).toMatchObject({ method: "_lembas/hello" });
    expect(hello).toMatchObject({
      protocol: 2,
      harness_spec: "1.0.0",
      device: { host: expect.any(String), platform: process.platform },
      limits: { roots: [d.work], max_mode: "edit", require_trust: true },
    });
    const init = (await link.request("initialize", LEMBAS_INIT)) as { agentCapabilities: Record<string, unknown>; _meta: { lembas: Record<string, unknown> } };
    // As the spec shows it: no session/load and no session capabilities on the link (those are an editor's).
    expect(init.agentCapabilities.loadSession).toBe(false);
    expect(init.agentCapabilities).not.toHaveProperty("sessionCapabilities");
    expect(init._meta.lembas).toMatchObject({ protocol: 2, limits: { roots: [d.work], max_mode: "edit" }, connection: "inst" });
    expect(init._meta.lembas.capabilities).toEqual(expect.arrayContaining(["directories", "steer", "sessions", "status", "delete", "turns"]));
  });

  test("protocol 1 to an instance that does not list 2", async () => {
    d = own = await startDevice({ protocol: 1, protocols: null });
    link = await d.serve({ init: null });
    expect((await link.hello).protocol).toBe(1);
    const init = (await link.request("initialize", { protocolVersion: 1, clientCapabilities: { _meta: { lembas: true } } })) as {
      _meta: { lembas: { protocol: number } };
    };
    expect(init._meta.lembas.protocol).toBe(1);
  });
});

describe("sessions on the link", () => {
  // The describe's one service: each test has its own model and project (work/project-N) on it.
  sharedServiceEach((t) => ({ d, link } = t));

  test("session/new only inside the roots and in a trusted project; modes lowered to max_mode", async () => {
    const outside = await rpcError(link.request("session/new", { cwd: d.box.dir, mcpServers: [] }));
    expect(outside.code).toBe(-32602);
    expect(outside.message).toContain("outside the device's remote roots");
    const untrusted = join(d.work, "other");
    mkdirSync(untrusted);
    const notTrusted = await rpcError(link.request("session/new", { cwd: untrusted, mcpServers: [] }));
    expect(notTrusted.message).toContain("not in a trusted project");
    const made = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { mode: "auto" } })) as {
      modes: { currentModeId: string; availableModes: { id: string }[] };
    };
    expect(made.modes.currentModeId).toBe("edit");
    expect(made.modes.availableModes.map((m) => m.id)).toEqual(["plan", "manual", "edit"]);
  });

  test("lembas_model is the instance's served name and becomes the device's ref", async () => {
    const made = (await link.request("session/new", { cwd: d.project, mcpServers: [], _meta: { lembas_model: "test-model" } })) as {
      _meta: { lembas: { model: string } };
    };
    expect(made._meta.lembas.model).toBe("inst/test-model");
  });

  test("a prompt's turn id: task events carry it, and sending it again does not run it twice", async () => {
    d.model.push(step({ text: "hello there" }));
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    const prompt = { sessionId, prompt: [{ type: "text", text: "hi" }], _meta: { lembas: { turnId: "msg-1" } } };
    const first = await link.request("session/prompt", prompt);
    expect(first).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: "msg-1" } } });
    const events = lembasEvents(link, sessionId);
    expect(events.filter((e) => e.type === "task")).toEqual([
      { type: "task", state: "start", turnId: "msg-1" },
      { type: "task", state: "end", turnId: "msg-1", stopReason: "end_turn" },
    ]);
    expect(events.find((e) => e.type === "prompt")).toMatchObject({ text: "hi", turnId: "msg-1" });
    const again = await link.request("session/prompt", prompt);
    expect(again).toEqual(first);
    expect(d.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
  });

  test("_lembas/directories: the roots and trusted dirs; a listing; a path outside the roots is refused", async () => {
    // A device of its own: the listing is of every project in the roots.
    d = own = await startDevice();
    link = await d.serve();
    const top = (await link.request("_lembas/directories", {})) as { path: string; places: { path: string; name: string; accepted: boolean; reason?: string }[] };
    expect(top.path).toBe("");
    expect(top.places).toEqual([
      { path: d.work, name: "work", accepted: false, reason: expect.stringContaining("not in a trusted project") },
      { path: d.project, name: "project", accepted: true },
    ]);
    const listing = (await link.request("_lembas/directories", { path: d.work })) as { entries: { path: string; name: string; accepted: boolean }[]; parent: string | null };
    expect(listing.entries).toEqual([{ path: d.project, name: "project", accepted: true }]);
    expect(listing.parent).toBeNull();
    const outside = await rpcError(link.request("_lembas/directories", { path: "/etc" }));
    expect(outside.code).toBe(-32602);
  });

  test("_lembas/configure changes the model and effort and emits the model event with instance", async () => {
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    const from = link.notifications.length;
    const result = await link.request("_lembas/configure", { sessionId, model: "test-model", effort: "high" });
    expect(result).toEqual({ model: "inst/test-model", effort: "high" });
    const model = await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "model", undefined, from);
    expect((model.params as { event: unknown }).event).toEqual({ type: "model", ref: "inst/test-model", effort: "high", connection: "inst", instance: true });
  });

  test("steer with nothing running, history and status of an unknown session, a long title, a forbidden delete: each its error", async () => {
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    const steer = await rpcError(link.request("_lembas/steer", { sessionId, text: "hey" }));
    expect(steer).toMatchObject({ code: -32602, message: expect.stringContaining("send it as a prompt instead") });
    const history = await rpcError(link.request("_lembas/session/history", { sessionId: "ses_unknown" }));
    expect(history.code).toBe(-32602);
    expect(await link.request("_lembas/session/status", { sessionId: "ses_unknown" })).toMatchObject({ exists: false, held: "none", busy: false });
    const title = await rpcError(link.request("_lembas/session/title", { sessionId, title: "x".repeat(201) }));
    expect(title.message).toContain("at most 200 characters");
    expect(await link.request("_lembas/session/title", { sessionId, title: "My work" })).toEqual({ title: "My work" });
    const bad = await rpcError(link.request("_lembas/session/status", { session: 1 }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/Invalid params: .*sessionId/);
    const unknown = await rpcError(link.request("_lembas/teleport", {}));
    expect(unknown.code).toBe(-32601);
  });

  test("history and status of a session", async () => {
    d.model.push(step({ toolCalls: [{ name: "list", arguments: {} }] }), step({ text: "listed" }));
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look" }], _meta: { lembas: { turnId: "t-7" } } });
    const history = (await link.request("_lembas/session/history", { sessionId })) as { root: string; turns: unknown[] };
    expect(history.root).toBe(d.project);
    expect(history.turns).toEqual([
      { role: "user", text: "look", turnId: "t-7" },
      { role: "assistant", text: "listed", reasoning: "", tools: [{ id: expect.any(String), name: "list", args: {}, output: expect.any(String), isError: false }] },
    ]);
    expect(await link.request("_lembas/session/status", { sessionId })).toEqual({
      sessionId,
      exists: true,
      held: "here",
      busy: expect.any(Boolean),
      title: expect.any(String),
      queued: [],
      lastTurnId: "t-7",
    });
  });

  test("delete: a session given to this client is deleted; one outside the roots never given is refused", async () => {
    const { sessionId } = (await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string };
    expect(await link.request("_lembas/session/delete", { sessionId })).toEqual({ deleted: true });
    expect(await link.request("_lembas/session/delete", { sessionId })).toEqual({ deleted: false });
    const run = await runLembas(d.box, ["run", "--yes", "hi"], { cwd: d.box.dir });
    // Nothing said but the session's closing line.
    expect(afterHeader(run.stderr)).toMatch(/^session ses_[\w-]+ · continue it: [^\n]+\n$/);
    expect(run.code).toBe(0);
    const otherId = /^session (ses_[\w-]+)/m.exec(run.stderr)?.[1] ?? "";
    expect(otherId).toStartWith("ses_");
    const refused = await rpcError(link.request("_lembas/session/delete", { sessionId: otherId }));
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining("never given to this client") });
  });

  test("malformed frames get their error and the link stays up", async () => {
    const from = link.messages.length;
    link.sendRaw("{not json");
    await link.waitForMessage((m) => m.error?.code === -32700, 5000, from);
    link.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 99, method: 5 }));
    await link.waitForMessage((m) => m.id === 99 && m.error?.code === -32600, 5000, from);
    expect(link.open).toBe(true);
    expect(await link.request("_lembas/session/status", { sessionId: "ses_x" })).toMatchObject({ exists: false });
  });
});
