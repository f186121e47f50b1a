import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { appliedVersion, openDb, StoreError } from "../../src/store/db.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { trustDir, trustedRootOf, untrustDir } from "../../src/store/trust.ts";
import { acceptTurn, forgetTurn, getTurn, listTurns, pruneTurns, setTurnState, TURNS_KEPT } from "../../src/store/turns.ts";
import { type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
let file: string;
beforeEach(() => {
  box = sandbox();
  file = join(box.stateDir, "lembas.db");
});
afterEach(() => box.cleanup());

const session = (id: string) => ({ id, root: "/tmp", cwd: "/tmp", mode: "edit", model: null, effort: "medium", origin: "test" });

describe("the store", () => {
  test("migrates an empty file, and opening it again applies nothing twice", () => {
    const db = openDb(file);
    expect(appliedVersion(db)).toBe(SCHEMA_VERSION);
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["sessions", "messages", "turns", "pending_deletes", "client_marks", "files", "frecency", "logins", "trusted", "holds", "migrations"]),
    );
    db.close();
    const again = openDb(file);
    const rows = again.query<{ n: number }, []>("SELECT count(*) AS n FROM migrations").get();
    expect(rows?.n).toBe(SCHEMA_VERSION);
    again.close();
  });

  test("the database file is mode 0600 and uses WAL", () => {
    const db = openDb(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    db.close();
  });

  test("a database written by a newer version is refused with a sentence", () => {
    openDb(file).close();
    const raw = new Database(file);
    raw.query("INSERT INTO migrations (version, applied_at) VALUES (?, ?)").run(SCHEMA_VERSION + 1, Date.now());
    raw.close();
    expect(() => openDb(file)).toThrow(StoreError);
    expect(() => openDb(file)).toThrow(/written by a newer lembas/);
  });

  test("a known turn id is not accepted twice", () => {
    const db = openDb(file);
    insertSession(db, session("ses_a"));
    expect(acceptTurn(db, "ses_a", "t1").accepted).toBe(true);
    setTurnState(db, "ses_a", "t1", "done", { stopReason: "end_turn" });
    const again = acceptTurn(db, "ses_a", "t1");
    expect(again.accepted).toBe(false);
    expect(again.turn).toMatchObject({ state: "done", answer: { stopReason: "end_turn" } });
    db.close();
  });

  test("a turn accepted is answered as the store holds it, a forgotten one's seq is not taken again", () => {
    const db = openDb(file);
    insertSession(db, session("ses_a"));
    for (const id of ["t1", "t2", "t3"]) {
      const accepted = acceptTurn(db, "ses_a", id);
      expect(accepted.accepted).toBe(true);
      expect(accepted.turn).toEqual(getTurn(db, "ses_a", id)!);
    }
    forgetTurn(db, "ses_a", "t2");
    expect(acceptTurn(db, "ses_a", "t4").turn.seq).toBe(4);
    db.close();
  });

  test("a trusted directory covers what is below it whichever way either is spelled: as stored, through a link, or an old row naming a link", () => {
    const db = openDb(file);
    const real = join(box.dir, "real");
    const project = join(real, "project");
    mkdirSync(project, { recursive: true });
    const alias = join(box.dir, "alias");
    symlinkSync(real, alias);
    expect(trustedRootOf(db, project)).toBeNull();
    // A row from before trust resolved links: it names the link, and still covers the real directory.
    db.query("INSERT INTO trusted (path, created_at) VALUES (?, ?)").run(alias, Date.now());
    expect(trustedRootOf(db, project)).toBe(alias);
    expect(trustedRootOf(db, join(alias, "project"))).toBe(alias);
    expect(trustedRootOf(db, box.dir)).toBeNull();
    trustDir(db, project);
    expect(trustedRootOf(db, join(alias, "project", "sub"))).not.toBeNull();
    expect(untrustDir(db, alias)).toBe(true);
    expect(trustedRootOf(db, join(alias, "project"))).not.toBeNull();
    expect(trustedRootOf(db, real)).toBeNull();
    db.close();
  });

  test(`only the last ${TURNS_KEPT} turn ids of a session are kept`, () => {
    const db = openDb(file);
    insertSession(db, session("ses_a"));
    for (let i = 0; i < TURNS_KEPT + 25; i++) {
      acceptTurn(db, "ses_a", `t${i}`);
      setTurnState(db, "ses_a", `t${i}`, "done", {});
    }
    const kept = listTurns(db, "ses_a");
    expect(kept.length).toBeLessThanOrEqual(TURNS_KEPT + 1);
    expect(kept.length).toBeGreaterThanOrEqual(TURNS_KEPT);
    expect(getTurn(db, "ses_a", `t${TURNS_KEPT + 24}`)).not.toBeNull();
    expect(getTurn(db, "ses_a", "t0")).toBeNull();
    db.close();
  });

  test("turns untouched for 30 days are pruned, recent ones stay", () => {
    const db = openDb(file);
    insertSession(db, session("ses_old"));
    insertSession(db, session("ses_new"));
    acceptTurn(db, "ses_old", "a");
    acceptTurn(db, "ses_new", "b");
    db.query("UPDATE turns SET updated_at = ? WHERE session_id = 'ses_old'").run(Date.now() - 31 * 86_400_000);
    expect(pruneTurns(db)).toBe(1);
    expect(getTurn(db, "ses_old", "a")).toBeNull();
    expect(getTurn(db, "ses_new", "b")).not.toBeNull();
    db.close();
  });

  test("two processes writing 1,000 turn rows each at once lose none", async () => {
    openDb(file).close();
    const script = join(import.meta.dir, "fixtures/write-turns.ts");
    const writers = ["a", "b"].map((prefix) =>
      Bun.spawn([process.execPath, script, file, "ses_shared", prefix, "1000"], { stdout: "pipe", stderr: "pipe" }),
    );
    const codes = await Promise.all(writers.map((w) => w.exited));
    const errors = await Promise.all(writers.map((w) => new Response(w.stderr).text()));
    expect(errors).toEqual(["", ""]);
    expect(codes).toEqual([0, 0]);
    const db = openDb(file);
    const counts = db
      .query<{ prefix: string; n: number; done: number }, []>(
        "SELECT substr(turn_id, 1, 1) AS prefix, count(*) AS n, sum(state = 'done') AS done FROM turns GROUP BY prefix ORDER BY prefix",
      )
      .all();
    expect(counts).toEqual([
      { prefix: "a", n: 1000, done: 1000 },
      { prefix: "b", n: 1000, done: 1000 },
    ]);
    const perSession = db
      .query<{ n: number; seqs: number }, []>("SELECT count(*) AS n, count(DISTINCT seq) AS seqs FROM turns GROUP BY session_id")
      .all();
    expect(perSession).toHaveLength(10);
    for (const s of perSession) expect(s).toEqual({ n: 200, seqs: 200 });
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    db.close();
  });
});
