import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { acceptTurn, setTurnState } from "../../src/store/turns.ts";
import { type Device, type ServiceTest, sharedServiceEach, startDevice } from "../support/device.ts";
import { isStep, step } from "../support/engine.ts";
import type { Link } from "../support/instance.ts";
import { contentText } from "../support/model.ts";
import { rpcError } from "../support/rpc.ts";
import { runLembas } from "../support/run.ts";

/** The test's device and link: the file's one service (with the test's own model and project), or its own. */
let d: Device;
let link: Link;
let shared: ServiceTest;
sharedServiceEach((t) => {
  shared = t;
});
/** A device the test started for itself: closed after it. */
let own: Device | null = null;
beforeEach(() => {
  ({ d, link } = shared);
});
afterEach(async () => {
  await own?.close();
  own = null;
});

/** A device and service of the test's own, for a test that changes what lies around every project (a .git above them, a name in the sandbox). */
async function ownDevice(): Promise<void> {
  d = own = await startDevice();
  link = await d.serve();
}

const newSession = async () => ((await link.request("session/new", { cwd: d.project, mcpServers: [] })) as { sessionId: string }).sessionId;

test("deleting a working session stops its turn, never runs the waiting one, and lets go of it", async () => {
  d.model.push(step({ text: Array.from({ length: 20 }, (_, i) => `w${i} `), chunkDelayMs: 100 }), step({ toolCalls: [{ name: "write", arguments: { path: "late.txt", content: "x" } }] }));
  const sessionId = await newSession();
  const from = link.notifications.length;
  const first = link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] }, 20_000);
  const second = link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] }, 20_000);
  await link.waitForNotification((n) => n.method === "_lembas/event" && (n.params as { event: { type: string } }).event.type === "text", undefined, from);
  expect(await link.request("_lembas/session/delete", { sessionId })).toEqual({ deleted: true });
  const answers = (await Promise.all([first, second])) as { stopReason: string }[];
  expect(answers.map((a) => a.stopReason)).toEqual(["cancelled", "cancelled"]);
  const { existsSync } = await import("node:fs");
  expect(existsSync(join(d.project, "late.txt"))).toBe(false);
  const gone = await rpcError(link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "three" }] }));
  expect(gone.message).toContain(`there is no session ${sessionId}`);
}, 30_000);

test("a directories path that climbs out of the roots with .. is refused", async () => {
  const error = await rpcError(link.request("_lembas/directories", { path: `${d.work}/../../../etc` }));
  expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("outside the device's remote roots") });
});

test("history and status of a session outside the roots, never given to this client, are refused", async () => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  insertSession(db, { id: "ses_private", root: d.box.dir, cwd: d.box.dir, mode: "edit", model: null, effort: "medium", origin: "terminal" });
  db.close();
  for (const method of ["_lembas/session/history", "_lembas/session/status"]) {
    const error = await rpcError(link.request(method, { sessionId: "ses_private" }));
    expect(error.message).toContain("never given to this client");
  }
});

test("a session a live terminal holds is reported held by the terminal, with its running turn", async () => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  insertSession(db, { id: "ses_term", root: d.project, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
  acceptTurn(db, "ses_term", "t-run");
  setTurnState(db, "ses_term", "t-run", "running");
  db.query("INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES (?, 'terminal', ?, ?, ?)").run("ses_term", process.pid, Date.now(), Date.now());
  db.close();
  expect(await link.request("_lembas/session/status", { sessionId: "ses_term" })).toMatchObject({ held: "terminal", busy: true, turnId: "t-run" });
});

test("a project root above the remote roots (a repository at home) is not the session's root: its cwd is", async () => {
  await ownDevice();
  mkdirSync(join(d.box.dir, ".git"));
  const sessionId = await newSession();
  const history = (await link.request("_lembas/session/history", { sessionId })) as { root: string };
  expect(history.root).toBe(d.project);
});

test("a project trusted through a symlink is trusted: session/new in the real directory is accepted", async () => {
  await ownDevice();
  const real = join(d.work, "real");
  const alias = join(d.box.dir, "alias");
  mkdirSync(real);
  symlinkSync(real, alias);
  expect((await runLembas(d.box, ["trust", alias])).code).toBe(0);
  const answer = (await link.request("session/new", { cwd: real, mcpServers: [] })) as { sessionId: string };
  expect(answer.sessionId).toStartWith("ses_");
});

test("delete judges a session's root by its real path: a root spelled through a symlink into the roots is deleted", async () => {
  const alias = join(d.box.dir, "alias");
  symlinkSync(d.work, alias);
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  const root = join(alias, "project");
  insertSession(db, { id: "ses_linked", root, cwd: root, mode: "edit", model: null, effort: "medium", origin: "terminal" });
  db.close();
  expect(await link.request("_lembas/session/delete", { sessionId: "ses_linked" })).toEqual({ deleted: true });
});

test("roots that are a repository: a session in a trusted subfolder takes the subfolder as its root, not the untrusted top", async () => {
  await ownDevice();
  mkdirSync(join(d.work, ".git"));
  writeFileSync(join(d.work, "AGENTS.md"), "UNTRUSTED TOP INSTRUCTIONS\n");
  mkdirSync(join(d.work, ".agent", "commands"), { recursive: true });
  writeFileSync(join(d.work, ".agent", "commands", "topcmd.md"), "Run the top's command.");
  const sessionId = await newSession();
  const history = (await link.request("_lembas/session/history", { sessionId })) as { root: string };
  expect(history.root).toBe(d.project);
  d.model.push(step({ text: "ok" }));
  await link.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }, 20_000);
  const system = contentText(d.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.[0]?.content);
  expect(system).toContain(`project root: ${d.project}`);
  expect(system).not.toContain("UNTRUSTED TOP INSTRUCTIONS");
  const commands = (await link.request("_lembas/commands", { cwd: d.project })) as { commands: { name: string }[] };
  expect(commands.commands.map((c) => c.name)).not.toContain("topcmd");
}, 30_000);

test("a session in a subfolder of a trusted repository inside the roots takes the repository's top as its root", async () => {
  mkdirSync(join(d.project, ".git"));
  mkdirSync(join(d.project, "src"));
  const { sessionId } = (await link.request("session/new", { cwd: join(d.project, "src"), mcpServers: [] })) as { sessionId: string };
  const history = (await link.request("_lembas/session/history", { sessionId })) as { root: string };
  expect(history.root).toBe(d.project);
});

test("a session kept with an untrusted project root above its trusted directory is not opened from the web", async () => {
  const db = openDb(join(d.box.stateDir, "lembas.db"));
  insertSession(db, { id: "ses_above", root: d.work, cwd: d.project, mode: "edit", model: null, effort: "medium", origin: "terminal" });
  db.close();
  const error = await rpcError(link.request("session/prompt", { sessionId: "ses_above", prompt: [{ type: "text", text: "hi" }] }));
  expect(error.code).toBe(-32602);
  expect(error.message).toContain(`project root ${d.work} is not one the web may open`);
  expect(d.model.requests.filter((r) => isStep(r.body))).toHaveLength(0);
});
