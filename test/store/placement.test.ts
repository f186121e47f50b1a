/**
 * store/placement.ts: where the store says a session is for a process that does not run it — not
 * there, held by another live process (its turns left as they stand), or by nobody (a dead holder's
 * running turn ended as interrupted and its waiting ones forgotten, in the same transaction) — and
 * the hold taken that recovers a dead holder's turns as it takes the session.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { type Db, openDb } from "../../src/store/db.ts";
import { holdSession, placeUnrun } from "../../src/store/placement.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { acceptTurn, getTurn, setTurnState } from "../../src/store/turns.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let db: Db;
let sleeper: Bun.Subprocess | null = null;
beforeEach(() => {
  box = sandbox();
  db = openDb(join(box.stateDir, "lembas.db"));
});
afterEach(async () => {
  sleeper?.kill("SIGKILL");
  await sleeper?.exited;
  sleeper = null;
  db.close();
  box.cleanup();
});

/** A session with a turn running and one waiting, held by `pid` as another process would hold it. */
function heldBy(pid: number): string {
  const id = `ses_${crypto.randomUUID().slice(0, 8)}`;
  insertSession(db, { id, root: "/tmp", cwd: "/tmp", mode: "edit", model: null, effort: "medium", origin: "test" });
  acceptTurn(db, id, "t_done");
  setTurnState(db, id, "t_done", "done", { turnId: "t_done", stopReason: "end_turn" });
  acceptTurn(db, id, "t_running");
  setTurnState(db, id, "t_running", "running");
  acceptTurn(db, id, "t_waiting");
  const now = Date.now();
  db.query("INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES (?, 'terminal', ?, ?, ?)").run(id, pid, now, now);
  return id;
}

async function deadPid(): Promise<number> {
  const gone = Bun.spawn(["true"]);
  await gone.exited;
  return gone.pid;
}

test("a session not in the store is absent", () => {
  expect(placeUnrun(db, "ses_nope")).toEqual({ at: "absent" });
});

test("another live process's session is elsewhere, with its turns as they stand (nothing settled)", () => {
  sleeper = Bun.spawn(["sleep", "30"]);
  const id = heldBy(sleeper.pid);
  const place = placeUnrun(db, id);
  expect(place.at).toBe("elsewhere");
  if (place.at !== "elsewhere") return;
  expect(place.hold).toMatchObject({ holder: "terminal", pid: sleeper.pid });
  expect(place.turns).toEqual({ running: "t_running", queued: ["t_waiting"], lastDone: "t_done" });
  expect(getTurn(db, id, "t_running")?.state).toBe("running");
  // Nor does taking its hold take it.
  expect(holdSession(db, id, "service", { recover: true })?.pid).toBe(sleeper.pid);
  expect(getTurn(db, id, "t_waiting")?.state).toBe("queued");
});

test("a dead holder's session is nobody's: its running turn ended as interrupted, its waiting one forgotten", async () => {
  const id = heldBy(await deadPid());
  const place = placeUnrun(db, id);
  expect(place.at).toBe("nobody");
  if (place.at !== "nobody") return;
  expect(place.turns).toEqual({ queued: [], lastDone: "t_running" });
  expect(getTurn(db, id, "t_running")).toMatchObject({ state: "done", answer: { turnId: "t_running", stopReason: "cancelled", interrupted: true } });
  expect(getTurn(db, id, "t_waiting")).toBeNull();
});

test("holding a dead holder's session takes it and recovers its turns in the same transaction", async () => {
  const id = heldBy(await deadPid());
  expect(holdSession(db, id, "service", { recover: true })).toBeNull();
  expect(db.query<{ pid: number }, [string]>("SELECT pid FROM holds WHERE session_id = ?").get(id)?.pid).toBe(process.pid);
  expect(getTurn(db, id, "t_running")?.state).toBe("done");
  expect(getTurn(db, id, "t_waiting")).toBeNull();
});
