/**
 * Cards at both ends of a terminal's shared session: the real `lembas serve` linked to the
 * simulated instance, the real terminal in tmux in a project inside remote.roots. An approval,
 * question or plan shows at the terminal and reaches the link as a patient request; the first
 * answer wins and the other end's card is taken down.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { IPC, wsUnixUrl } from "../../src/app/ipc-protocol.ts";
import { openDb } from "../../src/store/db.ts";
import { takeHold } from "../../src/store/holds.ts";
import { insertSession, newSessionId } from "../../src/store/sessions.ts";
import { VERSION } from "../../src/version.ts";
import { createContext } from "../../src/app/context.ts";
import { login } from "../../src/link/login.ts";
import { type Device, LEMBAS_INIT, type ServiceTest, sharedServiceEach, startDevice, TOKEN } from "../support/device.ts";
import { step } from "../support/engine.ts";
import { type Link, RpcError, type RpcRequest } from "../support/instance.ts";
import { digitOf, toolResults } from "../support/screens.ts";
import { type LinkFrom, terminalOnService } from "../support/share-suite.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

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

/** The file's one service and the terminal open in the test's project, sharing its session. */
async function onSharedService(): Promise<{ d: Device; link: Link; s: Screen; sessionId: string; from: LinkFrom }> {
  const { s, sessionId, from } = await terminalOnService(shared, (opened) => (screen = opened));
  return { d: shared.d, link: shared.link, s, sessionId, from };
}

/** `lembas login` as a second instance, by its own login() in this process (that command's tests are test/link/login.test.ts's). */
async function loginSecond(d: Device): Promise<void> {
  const ctx = createContext(d.box.env);
  try {
    await login({ url: d.instance.url.replace("127.0.0.1", "localhost"), token: TOKEN, name: "second", db: ctx.db(), config: ctx.config(), paths: ctx.paths });
  } finally {
    ctx.db().close();
  }
}

/** A device of the test's own serving one link, the terminal open in its project (args), and the shared session's id. */
async function sharedTerminal(opts: { args?: string[]; maxMode?: string; approvalTimeout?: number } = {}): Promise<{ d: Device; link: Link; s: Screen; sessionId: string }> {
  const first = await startDevice();
  device = first;
  const d = opts.maxMode || opts.approvalTimeout ? await withMaxMode(first, opts.maxMode ?? "edit", opts.approvalTimeout) : first;
  const link = await d.serve();
  screen = await openScreen(d.box, { cwd: d.project, args: opts.args ?? [] });
  await screen.waitFor("test/test-model");
  const announce = (await link.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  return { d, link, s: screen, sessionId: announce.sessionId };
}

async function withMaxMode(d: Device, maxMode: string, approvalTimeout = 5): Promise<Device> {
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    join(d.box.configDir, "config.yaml"),
    `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${d.work}]\n  max_mode: ${maxMode}\n  approval_timeout: ${approvalTimeout}\n`,
  );
  return d;
}

/** A link request the test answers when it says so (or never). */
function held(link: Link, method: string): { answer(result: unknown): void } {
  let answer: (result: unknown) => void = () => {};
  const answered = new Promise<unknown>((resolve) => {
    answer = resolve;
  });
  link.onRequest(method, () => answered);
  return { answer: (result) => answer(result) };
}

const bash = (command: string) => step({ toolCalls: [{ name: "bash", arguments: { command } }] });
const toolCallIdOf = (r: RpcRequest) => (r.params as { toolCall: { toolCallId: string } }).toolCall.toolCallId;

describe.skipIf(!HAVE_TMUX)("cards of a terminal's shared session", () => {
  test("an approval answered at the terminal: the link had it patient, hears settled, and the turn goes on", async () => {
    const { d, link, s, sessionId, from } = await onSharedService();
    held(link, "session/request_permission");
    d.model.push(bash("touch at-terminal.txt"), step({ text: "made it here" }));
    await s.write("make a file");
    await s.type("Enter");
    const card = await link.waitForRequest("session/request_permission", 15_000, from.requests);
    expect(card.params).toMatchObject({ sessionId, toolCall: { status: "pending", rawInput: { command: "touch at-terminal.txt" } }, _meta: { lembas: { patient: true } } });
    await s.waitFor("Yes, once");
    await s.type(digitOf(s, "Yes, once"));
    const settled = await link.waitForNotification("_lembas/permission/settled", 10_000, from.notifications);
    expect(settled.params).toEqual({ sessionId, toolCallId: toolCallIdOf(card) });
    await s.waitFor("made it here", 15_000);
    expect(existsSync(join(d.project, "at-terminal.txt"))).toBe(true);
  }, 60_000);

  test("an approval answered on the web: the terminal's card goes from its screen and the tool runs", async () => {
    const { d, link, s, from } = await onSharedService();
    const web = held(link, "session/request_permission");
    d.model.push(bash("touch from-web.txt"), step({ text: "the web said yes" }));
    await s.write("make a file");
    await s.type("Enter");
    await link.waitForRequest("session/request_permission", 15_000, from.requests);
    await s.waitFor("Yes, once");
    web.answer({ outcome: { outcome: "selected", optionId: "once" } });
    await s.waitGone("Yes, once", 10_000);
    await s.waitFor("the web said yes", 15_000);
    expect(existsSync(join(d.project, "from-web.txt"))).toBe(true);
    // The web answered: nothing to take down on the link that answered.
    expect(link.notifications.slice(from.notifications).some((n) => n.method === "_lembas/permission/settled")).toBe(false);
  }, 60_000);

  test("a patient approval is not timed out by the device (remote.approval_timeout is 1 s)", async () => {
    const { d, link, s } = await sharedTerminal({ approvalTimeout: 1 });
    held(link, "session/request_permission");
    d.model.push(bash("touch late.txt"), step({ text: "late but allowed" }));
    await s.write("make a file");
    await s.type("Enter");
    await link.waitForRequest("session/request_permission", 15_000);
    await s.waitFor("Yes, once");
    // Half a second past the device's 1 s from the card's request (the wait above began after it).
    await Bun.sleep(1500);
    expect(s.text()).toContain("Yes, once");
    expect(link.notifications.some((n) => n.method === "_lembas/permission/settled")).toBe(false);
    await s.type(digitOf(s, "Yes, once"));
    await s.waitFor("late but allowed", 15_000);
    expect(existsSync(join(d.project, "late.txt"))).toBe(true);
  }, 60_000);

  test("a question answered on the web: the terminal's card goes and the model gets the web's answer", async () => {
    const { d, link, s, sessionId, from } = await onSharedService();
    const web = held(link, "_lembas/question");
    d.model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { questions: [{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }] } }] }),
      step({ text: "postgres then" }),
    );
    await s.write("set up storage");
    await s.type("Enter");
    const card = await link.waitForRequest("_lembas/question", 15_000, from.requests);
    expect(card.params).toMatchObject({ sessionId, questions: [{ header: "Database", question: "Which database?" }], _meta: { lembas: { patient: true } } });
    await s.waitFor("Which database?");
    web.answer({ outcome: "answered", answers: [{ kind: "options", labels: ["Postgres"] }] });
    await s.waitFor("postgres then", 15_000);
    expect(s.text()).not.toContain("Type your own answer");
    expect(toolResults(d.model)).toContain("→ Postgres");
  }, 60_000);

  test("a question a link cannot show (method not found) stays the terminal's, and is answered there", async () => {
    const { d, link, s, from } = await onSharedService();
    // The file's link has had a handler for questions: it answers as a link without one does.
    link.onRequest("_lembas/question", (_params, request) => {
      throw new RpcError(-32601, `Method not found: ${request.method}`);
    });
    d.model.push(
      step({ toolCalls: [{ name: "ask_user", arguments: { questions: [{ header: "Database", question: "Which database?", options: [{ label: "SQLite" }, { label: "Postgres" }] }] } }] }),
      step({ text: "sqlite it is" }),
    );
    await s.write("set up storage");
    await s.type("Enter");
    await link.waitForRequest("_lembas/question", 15_000, from.requests);
    await s.waitFor("Which database?");
    await Bun.sleep(300);
    expect(s.text()).toContain("Which database?");
    await s.type(digitOf(s, "SQLite"));
    await s.waitFor("sqlite it is", 15_000);
    expect(toolResults(d.model)).toContain("→ SQLite");
  }, 60_000);

  test("an open card is sent again on the link that comes up after the link dropped, and answered there", async () => {
    const { d, link, s } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch after-redial.txt"), step({ text: "answered on the new link" }));
    await s.write("make a file");
    await s.type("Enter");
    const first = await link.waitForRequest("session/request_permission", 15_000);
    await link.close();
    const again = await d.instance.waitForLink(15_000);
    again.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    await again.hello;
    await again.request("initialize", LEMBAS_INIT);
    const resent = await again.waitForRequest("session/request_permission", 10_000);
    expect(toolCallIdOf(resent)).toBe(toolCallIdOf(first));
    expect(resent.params).toMatchObject({ _meta: { lembas: { patient: true } } });
    await s.waitFor("answered on the new link", 15_000);
    expect(existsSync(join(d.project, "after-redial.txt"))).toBe(true);
  }, 60_000);

  test("an open card is sent again after the service restarts (the terminal shares again), and answered on the web", async () => {
    const { d, link, s } = await sharedTerminal();
    held(link, "session/request_permission");
    d.model.push(bash("touch after-restart.txt"), step({ text: "answered after the restart" }));
    await s.write("make a file");
    await s.type("Enter");
    const first = await link.waitForRequest("session/request_permission", 15_000);
    await d.kill("SIGKILL");
    const again = await d.serve();
    again.onRequest("session/request_permission", () => ({ outcome: { outcome: "selected", optionId: "once" } }));
    const resent = await again.waitForRequest("session/request_permission", 15_000);
    expect(toolCallIdOf(resent)).toBe(toolCallIdOf(first));
    await s.waitFor("answered after the restart", 15_000);
    expect(existsSync(join(d.project, "after-restart.txt"))).toBe(true);
  }, 60_000);

  test("a plan approved from the web into edit mode goes on in remote.max_mode (manual), though the terminal could run edit", async () => {
    const { d, link, s, sessionId } = await sharedTerminal({ args: ["--mode", "plan"], maxMode: "manual" });
    const web = held(link, "_lembas/plan");
    d.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Tidy\n\n1. sort the imports\n" } }] }), step({ text: "carrying out the plan" }));
    await s.waitFor("test/test-model · plan");
    await s.write("plan a tidy-up");
    await s.type("Enter");
    const card = await link.waitForRequest("_lembas/plan", 15_000);
    expect(card.params).toMatchObject({ sessionId, text: "# Tidy\n\n1. sort the imports\n", _meta: { lembas: { patient: true } } });
    await s.waitFor("1. sort the imports");
    web.answer({ outcome: "approve", mode: "edit" });
    await s.waitFor("carrying out the plan", 15_000);
    await s.waitFor("test/test-model · manual");
    expect(toolResults(d.model)).toContain("was approved; the session is now in manual mode");
  }, 60_000);

  test("a plan approved from the web where remote.max_mode is plan decides nothing: the plan is not approved", async () => {
    const { d, link, s } = await sharedTerminal({ args: ["--mode", "plan"], maxMode: "plan" });
    const web = held(link, "_lembas/plan");
    d.model.push(step({ toolCalls: [{ name: "plan_submit", arguments: { plan: "# Tidy\n\n1. sort the imports\n" } }] }), step({ text: "still planning" }));
    await s.write("plan a tidy-up");
    await s.type("Enter");
    await link.waitForRequest("_lembas/plan", 15_000);
    await s.waitFor("1. sort the imports");
    web.answer({ outcome: "approve", mode: "edit" });
    await s.waitFor("still planning", 15_000);
    expect(s.text()).toContain("test/test-model · plan");
    expect(toolResults(d.model)).not.toContain("was approved");
  }, 60_000);
});

describe.skipIf(!HAVE_TMUX)("cards of a terminal's shared session, on two links", () => {
  test("a link that comes up while a card is open gets it; answered on the other link, it hears settled, and its late answer counts for nothing", async () => {
    const d = await startDevice();
    device = d;
    await loginSecond(d);
    const a = await d.serve();
    const b = await d.instance.waitForLink(10_000);
    await b.hello;
    const fromA = held(a, "session/request_permission");
    const fromB = held(b, "session/request_permission");
    screen = await openScreen(d.box, { cwd: d.project });
    const s = screen;
    await s.waitFor("test/test-model");
    await a.waitForNotification("_lembas/session/announce", 15_000);
    d.model.push(bash("echo once >> count.txt"), step({ text: "ran it" }));
    await s.write("count");
    await s.type("Enter");
    const card = await a.waitForRequest("session/request_permission", 15_000);
    // b has said no initialize yet: it is not a LLeMbas client yet, and has no card.
    expect(b.requests.some((r) => r.method === "session/request_permission")).toBe(false);
    await b.request("initialize", LEMBAS_INIT);
    const resent = await b.waitForRequest("session/request_permission", 10_000);
    expect(toolCallIdOf(resent)).toBe(toolCallIdOf(card));
    fromA.answer({ outcome: { outcome: "selected", optionId: "once" } });
    const settled = await b.waitForNotification("_lembas/permission/settled", 10_000);
    expect(settled.params).toMatchObject({ toolCallId: toolCallIdOf(card) });
    await s.waitFor("ran it", 15_000);
    fromB.answer({ outcome: { outcome: "selected", optionId: "deny" } });
    await Bun.sleep(300);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(d.project, "count.txt"), "utf8")).toBe("once\n");
    expect(a.notifications.some((n) => n.method === "_lembas/permission/settled")).toBe(false);
    expect(d.service?.exitCode).toBeNull();
  }, 60_000);

  test("answered at the terminal: every link hears settled", async () => {
    const d = await startDevice();
    device = d;
    await loginSecond(d);
    const a = await d.serve();
    const b = await d.instance.waitForLink(10_000);
    await b.hello;
    await b.request("initialize", LEMBAS_INIT);
    held(a, "session/request_permission");
    held(b, "session/request_permission");
    screen = await openScreen(d.box, { cwd: d.project });
    const s = screen;
    await s.waitFor("test/test-model");
    d.model.push(bash("touch no.txt"), step({ text: "denied at the terminal" }));
    await s.write("make a file");
    await s.type("Enter");
    const card = await a.waitForRequest("session/request_permission", 15_000);
    await b.waitForRequest("session/request_permission", 10_000);
    await s.waitFor("Yes, once");
    await s.type("Escape");
    for (const link of [a, b]) expect((await link.waitForNotification("_lembas/permission/settled", 10_000)).params).toMatchObject({ toolCallId: toolCallIdOf(card) });
    await s.waitFor("denied at the terminal", 15_000);
    expect(existsSync(join(d.project, "no.txt"))).toBe(false);
  }, 60_000);
});

test("a terminal's card requests over the IPC are judged: bad params and sessions it does not share get -32602, and before a hello nothing is served", async () => {
  const { d } = shared;
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  const sessionId = newSessionId();
  try {
    insertSession(db, { id: sessionId, root: d.project, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
    takeHold(db, sessionId, "terminal");
  } finally {
    db.close();
  }
  const ws = new WebSocket(wsUnixUrl(join(d.box.stateDir, "service.sock")));
  const answers = new Map<number, (m: { result?: unknown; error?: { code: number } }) => void>();
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data));
    if (m.method === "initialize") ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1 } }));
    else if (m.method === undefined) answers.get(m.id)?.(m);
  });
  await new Promise((resolve) => ws.addEventListener("open", resolve, { once: true }));
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: { code: number } }>((resolve) => {
      answers.set(++id, resolve);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  const card = { sessionId, toolCall: { toolCallId: "call_1", title: "t", status: "pending" }, options: [] };
  try {
    expect((await request("session/request_permission", card)).error?.code).toBe(-32010);
    await request("_lembas/ipc/hello", { ipc: IPC, version: VERSION, pid: process.pid });
    // Not shared yet.
    expect((await request("session/request_permission", card)).error?.code).toBe(-32602);
    const shared = await request("_lembas/ipc/share", { sessionId, cwd: d.project, title: "t", model: null, connection: null, mode: "edit", effort: "medium", busy: false });
    expect(shared.error).toBeUndefined();
    for (const [method, params] of [
      ["session/request_permission", { sessionId }],
      ["_lembas/question", { sessionId, toolCallId: "call_2", questions: "which?" }],
      ["_lembas/plan", { sessionId, toolCallId: "call_3", path: 5, text: "x" }],
      ["_lembas/question", { sessionId: "ses_other", toolCallId: "call_4", questions: [{}] }],
    ] as const) {
      expect((await request(method, params)).error?.code).toBe(-32602);
    }
    // A settled of nothing open, and a bad one, are let be.
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "_lembas/permission/settled", params: { sessionId, toolCallId: "call_9" } }));
    ws.send(JSON.stringify({ jsonrpc: "2.0", method: "_lembas/permission/settled", params: 7 }));
    expect((await request("_lembas/ipc/leave", { sessionId })).error).toBeUndefined();
    expect(d.service?.exitCode).toBeNull();
  } finally {
    ws.close();
  }
}, 30_000);
