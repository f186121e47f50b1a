/**
 * store/checkpoint.ts: the WAL is checkpointed when a process is idle or exits, not in a commit on a
 * turn's way to its first chunk; a process that never idles still stops its WAL at the bound; and a
 * WAL left unchecked loses nothing when the process is killed mid-turn.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BOUND_PAGES, DUE_PAGES } from "../../src/store/checkpoint.ts";
import { openDb } from "../../src/store/db.ts";
import { walFrames } from "../../src/store/wal-frames.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

let agent: StdioAgent | null = null;
let box: Sandbox | null = null;
const dbs: Database[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) db.close();
  await agent?.close();
  agent = null;
  box?.cleanup();
  box = null;
});

/** A 4 KiB page's worth of text: each row below takes a page of its own. */
const PAGE = "x".repeat(3500);

function scratch(db: Database): void {
  db.exec("CREATE TABLE IF NOT EXISTS scratch (x TEXT)");
}

/** Frames of the WAL not in the database yet. */
function pending(file: string): number {
  const frames = walFrames(file);
  return frames ? frames.mxFrame - frames.backfilled : 0;
}

/** Waits (bounded by the test's timeout) until `done`; the assertion is the caller's. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await Bun.sleep(50);
}

async function turns(a: StdioAgent, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `turn ${i}` }] });
    ids.push(sessionId);
  }
  return ids;
}

test("serve --stdio checkpoints the WAL once idle after its turns: the WAL starts over, every turn kept", async () => {
  agent = await startStdioAgent();
  const file = join(agent.box.stateDir, "lembas.db");
  await agent.agent.request("initialize", initializeParams);
  const sessions = await turns(agent, 6);
  // Before: nothing checkpointed these frames until some later commit crossed 1,000 pages.
  await until(() => (walFrames(file)?.mxFrame ?? 0) <= 1);
  expect(walFrames(file)?.mxFrame).toBeLessThanOrEqual(1);
  const db = openDb(file);
  dbs.push(db);
  for (const id of sessions) {
    expect(db.query<{ role: string }, [string]>("SELECT role FROM messages WHERE session_id = ? ORDER BY seq").all(id).map((m) => m.role)).toEqual(["user", "assistant"]);
  }
});

test("a commit under the bound does not checkpoint: the pages written stay in the WAL until the process idles", () => {
  box = sandbox();
  const file = join(box.stateDir, "lembas.db");
  const db = openDb(file);
  dbs.push(db);
  scratch(db);
  const insert = db.query("INSERT INTO scratch (x) VALUES (?)");
  const grown: number[] = [];
  while (grown.length < 2000 && pending(file) < DUE_PAGES + 500) {
    insert.run(PAGE);
    grown.push(walFrames(file)?.mxFrame ?? 0);
  }
  // Before: the commit that crossed 1,000 pages checkpointed the WAL inside itself, which started over.
  expect(grown.filter((frames, i) => i > 0 && frames < (grown[i - 1] ?? 0))).toEqual([]);
  expect(pending(file)).toBeGreaterThanOrEqual(DUE_PAGES + 500);
});

test("a process that never idles: its WAL stops growing at the bound", () => {
  box = sandbox();
  const file = join(box.stateDir, "lembas.db");
  const db = openDb(file);
  dbs.push(db);
  scratch(db);
  const insert = db.query("INSERT INTO scratch (x) VALUES (?)");
  let most = 0;
  for (let i = 0; i < 3 * BOUND_PAGES; i++) {
    insert.run(PAGE);
    most = Math.max(most, walFrames(file)?.mxFrame ?? 0);
  }
  // A commit of one row writes its page and the pages above it in the b-tree.
  expect(most).toBeGreaterThan(BOUND_PAGES - 10);
  expect(most).toBeLessThan(BOUND_PAGES + 10);
});

test("a service that never idles: a WAL past due is checkpointed at a turn's end, not in a commit on its way to the first chunk", async () => {
  agent = await startStdioAgent();
  const file = join(agent.box.stateDir, "lembas.db");
  await agent.agent.request("initialize", initializeParams);
  // No turn before (its end would set an idle checkpoint going): the store is made here.
  const other = openDb(file);
  dbs.push(other);
  // Another process wrote the WAL past due without checkpointing (one whose turns never end).
  other.exec("PRAGMA wal_autocheckpoint = 0");
  scratch(other);
  const insert = other.query("INSERT INTO scratch (x) VALUES (?)");
  for (let i = 0; i < DUE_PAGES + 100; i++) insert.run(PAGE);
  const hold = Promise.withResolvers<void>();
  agent.model.push(step({ text: "half of it then the rest", hold: hold.promise }));
  const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
  const answer = agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  await agent.waitForUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk", 20_000);
  // Before: the session's or the turn's first commit crossed 1,000 pages and checkpointed inside itself.
  expect(pending(file)).toBeGreaterThan(DUE_PAGES);
  hold.resolve();
  expect((await answer).stopReason).toBe("end_turn");
  expect(pending(file)).toBeLessThan(10);
});

test("a short command's exit checkpoints the WAL another process left (SQLite does, as Bun closes the store)", async () => {
  box = sandbox();
  const file = join(box.stateDir, "lembas.db");
  const other = openDb(file);
  dbs.push(other);
  // The other process never checkpoints: it stands for one whose turns never end.
  other.exec("PRAGMA wal_autocheckpoint = 0");
  scratch(other);
  const insert = other.query("INSERT INTO scratch (x) VALUES (?)");
  for (let i = 0; i < DUE_PAGES + 100; i++) insert.run(PAGE);
  expect(pending(file)).toBeGreaterThan(DUE_PAGES);
  const listed = await runLembas(box, ["sessions", "list"]);
  expect(listed).toMatchObject({ code: 0, stderr: "lembas: no sessions on this device yet\n" });
  // What `lembas run` and every short command rely on: no hook of ours, nothing on a turn's path.
  expect(pending(file)).toBe(0);
});

test("killed mid-turn with its WAL unchecked: every turn ended is kept, the one running is stored as running", async () => {
  agent = await startStdioAgent();
  const file = join(agent.box.stateDir, "lembas.db");
  await agent.agent.request("initialize", initializeParams);
  const ended = await turns(agent, 3);
  const hold = Promise.withResolvers<void>();
  agent.model.push(step({ text: "half of it then the rest", hold: hold.promise }));
  const { sessionId } = await agent.agent.request("session/new", { cwd: agent.project, mcpServers: [] });
  void agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "the last" }] }).catch(() => undefined);
  await agent.waitForUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === "agent_message_chunk", 20_000);
  // No idle while a turn runs: what the turns wrote is in the WAL alone.
  expect(pending(file)).toBeGreaterThan(0);
  agent.proc.kill("SIGKILL");
  await agent.proc.exited;
  hold.resolve();
  const db = openDb(file);
  dbs.push(db);
  for (const id of ended) {
    expect(db.query<{ role: string }, [string]>("SELECT role FROM messages WHERE session_id = ? ORDER BY seq").all(id).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(db.query<{ state: string }, [string]>("SELECT state FROM turns WHERE session_id = ?").all(id)).toEqual([{ state: "done" }]);
  }
  expect(db.query<{ role: string }, [string]>("SELECT role FROM messages WHERE session_id = ? ORDER BY seq").get(sessionId)?.role).toBe("user");
  expect(db.query<{ state: string }, [string]>("SELECT state FROM turns WHERE session_id = ?").all(sessionId)).toEqual([{ state: "running" }]);
});
