/**
 * A device logged in to two instances at once gives each only its own sessions: a session made on
 * A's link is refused to B's by its id (read, driven, configured, searched, deleted), A keeps it
 * and its events; a session never given to any login, and a terminal's shared one, reach both. A
 * logout forgets what the device kept for that login's clients: another instance logged in under
 * the same name gets none of its sessions nor its deletes.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../src/app/context.ts";
import { login } from "../../src/link/login.ts";
import { openDb } from "../../src/store/db.ts";
import { insertSession, newSessionId } from "../../src/store/sessions.ts";
import { markGiven } from "../../src/store/marks.ts";
import { trustDir } from "../../src/store/trust.ts";
import { type Device, LEMBAS_INIT, lembasEvents, newSession, startDevice, TOKEN } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import { type Instance, type Link, startInstance } from "../support/instance.ts";
import { rpcError } from "../support/rpc.ts";
import { profiled, runLembas } from "../support/run.ts";
import { HAVE_TMUX, openScreen, type Screen } from "../support/tmux.ts";

let device: Device | null = null;
let other: Instance | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close();
  screen = null;
  await device?.close();
  device = null;
  await other?.close();
  other = null;
});

/** `lembas login` to `instance` under `name`, by its own login() in this process (the command's tests are login.test.ts's). */
async function loginAs(d: Device, instance: Instance, name: string, token = TOKEN): Promise<void> {
  const ctx = createContext(d.box.env);
  try {
    await login({ url: instance.url, token, name, db: ctx.db(), config: ctx.config(), paths: ctx.paths });
  } finally {
    ctx.db().close();
  }
}

/** The device linked to its own instance (A, `inst`) and to a second one (B, `instb`), both initialized. */
async function twoLinks(): Promise<{ d: Device; a: Link; b: Link }> {
  const d = await startDevice();
  device = d;
  other = await startInstance({ token: TOKEN, model: d.model, name: "other" });
  await loginAs(d, other, "instb");
  const a = await d.serve();
  const b = await other.waitForLink(10_000);
  await b.hello;
  await b.request("initialize", LEMBAS_INIT);
  return { d, a, b };
}

const NOT_THIS = "not this instance's session";

/** The model's turn steps so far (title and other side calls left out). */
const steps = (d: Device) => d.model.requests.filter((r) => isStep(r.body)).length;

test("a session made on one instance's link is refused by id on another's, and its own link keeps it and its events", async () => {
  const { d, a, b } = await twoLinks();
  const sessionId = await newSession(a, d.project);
  d.model.push(step({ text: "A's private answer" }));
  await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "A's private prompt" }] }, 20_000);
  const asked = steps(d);
  const byB: [string, object][] = [
    ["_lembas/session/history", {}],
    ["_lembas/session/status", {}],
    ["session/prompt", { prompt: [{ type: "text", text: "B's prompt" }] }],
    ["_lembas/configure", { model: "test-model" }],
    ["_lembas/files/search", { query: "" }],
    ["_lembas/steer", { text: "B's word" }],
    ["_lembas/session/title", { title: "B's title" }],
    ["_lembas/session/compact", {}],
    ["_lembas/commands", {}],
    ["session/set_mode", { modeId: "plan" }],
    ["_lembas/session/delete", {}],
  ];
  for (const [method, params] of byB) {
    const error = await rpcError(b.request(method, { sessionId, ...params }, 15_000));
    expect({ method, code: error.code, refused: error.message.includes(NOT_THIS) }).toEqual({ method, code: -32602, refused: true });
  }
  // Nothing of B's ran on the model, and A's session is as A left it.
  expect(steps(d)).toBe(asked);
  const history = (await a.request("_lembas/session/history", { sessionId })) as { title: string; turns: { text: string }[] };
  expect(history.turns.map((t) => t.text)).toEqual(["A's private prompt", "A's private answer"]);
  const status = (await a.request("_lembas/session/status", { sessionId })) as { exists: boolean; held: string };
  expect(status).toMatchObject({ exists: true, held: "here" });
  // A still has it: its next turn's events come on A's link, none on B's.
  const from = a.notifications.length;
  d.model.push(step({ text: "still A's" }));
  const answer = (await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] }, 20_000)) as { stopReason: string };
  expect(answer.stopReason).toBe("end_turn");
  expect(lembasEvents(a, sessionId, from).length).toBeGreaterThan(0);
  expect(b.notifications.some((n) => (n.params as { sessionId?: string } | undefined)?.sessionId === sessionId)).toBe(false);
  await Bun.sleep(3500);
  expect(a.notifications.some((n) => n.method === "_lembas/session/deleted")).toBe(false);
}, 90_000);

test("a session never given to any login falls to the rules of place: both links may read it", async () => {
  const { d, a, b } = await twoLinks();
  const sessionId = newSessionId();
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    insertSession(db, { id: sessionId, root: d.project, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
  } finally {
    db.close();
  }
  for (const link of [a, b]) expect(await link.request("_lembas/session/history", { sessionId })).toMatchObject({ sessionId, turns: [] });
}, 60_000);

test("a session given to both logins (a terminal's share, left) is still one link's at a time: another login's link does not take it", async () => {
  const { d, a, b } = await twoLinks();
  const sessionId = newSessionId();
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    insertSession(db, { id: sessionId, root: d.project, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
    for (const login of ["inst", "instb"]) markGiven(db, sessionId, login);
  } finally {
    db.close();
  }
  d.model.push(step({ text: "A's turn" }));
  await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "from A" }] }, 20_000);
  const error = await rpcError(b.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "from B" }] }, 15_000));
  expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("open on the link of another instance") });
  // Both may still read it; A still has it and its events.
  for (const link of [a, b]) expect(await link.request("_lembas/session/history", { sessionId })).toMatchObject({ sessionId });
  const from = a.notifications.length;
  d.model.push(step({ text: "A's again" }));
  await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] }, 20_000);
  expect(lembasEvents(a, sessionId, from).length).toBeGreaterThan(0);
}, 60_000);

test.skipIf(!HAVE_TMUX)("a terminal's shared session reaches both links, and each may read it", async () => {
  const { d, a, b } = await twoLinks();
  screen = await openScreen(d.box, { cwd: d.project });
  await screen.waitFor("test/test-model");
  const fromA = (await a.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  const fromB = (await b.waitForNotification("_lembas/session/announce", 15_000)).params as { sessionId: string };
  expect(fromB.sessionId).toBe(fromA.sessionId);
  for (const link of [a, b]) expect(await link.request("_lembas/session/history", { sessionId: fromA.sessionId })).toMatchObject({ sessionId: fromA.sessionId });
}, 60_000);

test("a logout forgets the login's sessions and kept deletes: another instance logged in under the same name gets none of them", async () => {
  const d = await startDevice();
  device = d;
  const a = await d.serve();
  const kept = await newSession(a, d.project);
  d.model.push(step({ text: "A's answer" }));
  await a.request("session/prompt", { sessionId: kept, prompt: [{ type: "text", text: "A's prompt" }] }, 20_000);
  const deletedBefore = await newSession(a, d.project);
  const deletedAfter = await newSession(a, d.project);
  await d.kill("SIGTERM");
  // One delete kept for A's login while it is still there, one made after its logout.
  expect((await runLembas(d.box, ["sessions", "delete", deletedBefore])).code).toBe(0);
  expect((await runLembas(d.box, ["logout", "inst"])).code).toBe(0);
  expect((await runLembas(d.box, ["sessions", "delete", deletedAfter])).code).toBe(0);
  other = await startInstance({ token: "c-token-0123456789ab", model: d.model, name: "C" });
  await loginAs(d, other, "inst", "c-token-0123456789ab");
  // A's project is outside the roots now: only a mark of A's could let C have its session.
  const elsewhere = join(d.box.dir, "elsewhere");
  mkdirSync(elsewhere);
  writeFileSync(join(d.box.configDir, "config.yaml"), `model: test/test-model\nconnections:\n  test:\n    base_url: ${d.model.url}\nremote:\n  roots: [${elsewhere}]\n  max_mode: edit\n`);
  const program = profiled("service");
  d.service = Bun.spawn([...program.command, "serve"], { cwd: d.box.dir, env: { ...d.box.env, ...program.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const c = await other.waitForLink(15_000);
  await c.hello;
  await c.request("initialize", LEMBAS_INIT);
  // Kept deletes go out right after initialize; C's own new session proves the link served past that point.
  const project = join(elsewhere, "p");
  mkdirSync(project);
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  try {
    trustDir(db, project);
  } finally {
    db.close();
  }
  await newSession(c, project);
  await Bun.sleep(3500);
  expect(c.notifications.filter((n) => n.method === "_lembas/session/deleted")).toEqual([]);
  for (const method of ["_lembas/session/history", "_lembas/session/delete"]) {
    const error = await rpcError(c.request(method, { sessionId: kept }, 15_000));
    expect({ method, code: error.code, message: error.message }).toMatchObject({ method, code: -32602, message: expect.stringContaining("outside the device's remote roots") });
  }
}, 90_000);
