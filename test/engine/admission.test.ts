import { afterEach, beforeEach, expect, test } from "bun:test";
import { acceptTurn, setTurnState } from "../../src/store/turns.ts";
import { type EngineHarness, engineHarness, ofType, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const slow = () => step({ text: Array.from({ length: 20 }, (_, i) => `w${i} `), chunkDelayMs: 40 });

test("turns run in the order they were admitted, however long the first one takes to prepare", async () => {
  h.model.push(step({ text: "first" }), step({ text: "second" }));
  const session = await h.session();
  const a = await session.admit("turn-a");
  const b = await session.admit("turn-b");
  if (!("ticket" in a) || !("ticket" in b)) throw new Error("both turns are new");
  const second = b.ticket.prompt({ text: "second, ready at once" });
  await Bun.sleep(50);
  const first = a.ticket.prompt({ text: "first, slow to prepare" });
  await Promise.all([first, second]);
  const starts = ofType(h.events(session), "task").filter((e) => e.state === "start").map((e) => e.turnId);
  expect(starts).toEqual(["turn-a", "turn-b"]);
});

test("an abandoned ticket lets the turns behind it run, and the same id may be sent again", async () => {
  h.model.push(step({ text: "behind" }), step({ text: "again" }));
  const session = await h.session();
  const a = await session.admit("turn-a");
  const b = await session.admit("turn-b");
  if (!("ticket" in a) || !("ticket" in b)) throw new Error("both turns are new");
  const behind = b.ticket.prompt({ text: "behind" });
  a.ticket.abandon(new Error("a bad block"));
  expect((await behind).stopReason).toBe("end_turn");
  expect((await session.prompt({ text: "again", turnId: "turn-a" })).stopReason).toBe("end_turn");
});

test("a command's mode is taken when its turn starts: a queued turn that never runs changes no mode", async () => {
  h.model.push(slow());
  const session = await h.session({ mode: "edit" });
  const running = session.prompt({ text: "talk", turnId: "run" });
  await Bun.sleep(60);
  const queued = await session.admit("plan-later");
  if (!("ticket" in queued)) throw new Error("a new turn");
  const planned = queued.ticket.prompt({ text: "plan it", mode: "plan" });
  expect(session.mode).toBe("edit");
  session.cancelTurn("plan-later");
  expect(await planned).toMatchObject({ stopReason: "cancelled" });
  await running;
  expect(session.mode).toBe("edit");
  expect(ofType(h.events(session), "mode")).toEqual([]);
});

test("a turn another process accepted and died before starting runs here, once", async () => {
  const session = await h.session();
  // Another lembas process holds the session and has accepted the turn, not yet started.
  const other = Bun.spawn(["sleep", "30"]);
  h.db.query("UPDATE holds SET pid = ?, heartbeat = ? WHERE session_id = ?").run(other.pid, Date.now(), session.id);
  acceptTurn(h.db, session.id, "theirs");
  h.model.push(step({ text: "ran here" }));
  const answer = session.prompt({ text: "do it", turnId: "theirs" });
  await Bun.sleep(250);
  expect(h.model.requests).toHaveLength(0);
  other.kill();
  await other.exited;
  expect(await answer).toMatchObject({ turnId: "theirs", stopReason: "end_turn" });
  expect(h.model.requests.length).toBeGreaterThan(0);
  expect(session.messages().filter((m) => m.role === "user").map((m) => (m.body as { text: string }).text)).toEqual(["do it"]);
});

test("a stored answer that cannot be read is answered with a sentence, not passed on as it is", async () => {
  const session = await h.session();
  acceptTurn(h.db, session.id, "odd");
  setTurnState(h.db, session.id, "odd", "done", { stopReason: 42 });
  const answer = await session.prompt({ text: "again", turnId: "odd" });
  expect(answer).toEqual({ turnId: "odd", stopReason: "end_turn", error: "the answer of turn odd kept on the device could not be read" });
  expect(h.model.requests).toHaveLength(0);
});
