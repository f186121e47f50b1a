/**
 * A process stopped long enough for its holds to go stale (SIGSTOP, a laptop asleep) may find,
 * when it runs again, that another process took its session or that it was deleted. At its next
 * heartbeat it stops running such a session, with a notice, so that two processes never write one.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { listMessages } from "../../src/store/messages.ts";
import { deleteSession } from "../../src/store/sessions.ts";
import { type EngineHarness, engineHarness, ofType, step } from "../support/engine.ts";

let h: EngineHarness;
let other: ReturnType<typeof Bun.spawn> | null = null;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(async () => {
  other?.kill();
  other = null;
  await h.close();
});

/** Another live process takes the session's hold, as taking a stale one does. */
function takenByAnother(sessionId: string): number {
  other = Bun.spawn(["sleep", "30"]);
  h.db.query("UPDATE holds SET holder = 'terminal', pid = ?, heartbeat = ? WHERE session_id = ?").run(other.pid, Date.now(), sessionId);
  return other.pid;
}

describe("sessions a stopped process lost meanwhile", () => {
  test("a session taken by another process is no longer run here, and the notice says who has it", async () => {
    const session = await h.session();
    const pid = takenByAnother(session.id);
    h.engine.letGoOfLost();
    expect(h.engine.get(session.id)).toBeNull();
    const notice = ofType(h.events(session), "notice").at(-1);
    expect(notice?.message).toContain(`taken by another lembas process (terminal, pid ${pid})`);
    // Its hold stays the other process's.
    expect(h.db.query<{ pid: number }, [string]>("SELECT pid FROM holds WHERE session_id = ?").get(session.id)?.pid).toBe(pid);
  });

  test("a turn running when the session was taken stops, and writes nothing more to it", async () => {
    const session = await h.session();
    h.model.push(step({ text: Array.from({ length: 200 }, (_, i) => `w${i} `), chunkDelayMs: 10 }));
    const answer = session.prompt({ text: "a long one" });
    await Bun.sleep(300);
    takenByAnother(session.id);
    h.engine.letGoOfLost();
    expect((await answer).stopReason).toBe("cancelled");
    const written = listMessages(h.db, session.id).length;
    await Bun.sleep(300);
    expect(listMessages(h.db, session.id).length).toBe(written);
  });

  test("a session deleted meanwhile is closed here; one this process still holds is kept", async () => {
    const gone = await h.session();
    const kept = await h.session();
    deleteSession(h.db, gone.id);
    h.engine.letGoOfLost();
    expect(h.engine.get(gone.id)).toBeNull();
    expect(ofType(h.events(gone), "notice").at(-1)?.message).toContain("was deleted while this process was not running");
    expect(h.engine.get(kept.id)).not.toBeNull();
  });
});
