/**
 * /sessions: many sessions listed at once, and a delete of one another lembas holds.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import type { Sandbox } from "../support/run.ts";
import { screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const suite = screenSuite({ ready: "test/test-model" });
let box: Sandbox & { project: string };
let model: ScriptedModel;
beforeEach(() => {
  ({ box, model } = suite);
});
const open = (args: string[] = [], env: Record<string, string> = {}) => suite.open(args, { env });

describe.skipIf(!HAVE_TMUX)("sessions", () => {
  function seed(fill: (db: ReturnType<typeof openDb>) => void): void {
    const db = openDb(join(box.stateDir, "lembas.db"));
    fill(db);
    db.close();
  }
  const row = (id: string, root: string, title: string, at: number) => (db: ReturnType<typeof openDb>) => {
    insertSession(db, { id, root, cwd: root, mode: "edit", model: null, effort: "medium", origin: "terminal", title });
    db.query("UPDATE sessions SET updated_at = ?, created_at = ? WHERE id = ?").run(at, at, id);
  };

  test("/sessions lists this project's sessions even when 300 newer ones of other projects exist", async () => {
    const now = Date.now();
    seed((db) => {
      row("ses_mine_old", box.project, "my old work", now - 100_000)(db);
      for (let i = 0; i < 300; i++) row(`ses_other_${i}`, join(box.dir, "elsewhere"), `other ${i}`, now - i)(db);
    });
    const screen = await open();
    await screen.type("/sessions", "Enter");
    await screen.waitFor(/Sessions of this project|there is no other session/);
    expect(screen.text()).toContain("my old work");
  });

  test("/sessions in a project with 500 sessions opens and lists them", async () => {
    const now = Date.now();
    seed((db) => {
      for (let i = 0; i < 500; i++) row(`ses_mine_${String(i).padStart(3, "0")}`, box.project, `task ${i}`, now - i * 1000)(db);
    });
    const screen = await open();
    await screen.type("/sessions", "Enter");
    await screen.waitFor("Sessions of this project");
    await screen.write("task 499");
    await screen.waitFor("ses_mine_499");
  });
});

describe.skipIf(!HAVE_TMUX)("a session another lembas holds", () => {
  test("/sessions delete of a session another lembas holds is refused, and the session stays", async () => {
    model.push(step({ text: "first answer" }));
    const other = await open();
    await other.type("hello", "Enter");
    await other.waitFor("first answer");
    await other.type("/status", "Enter");
    const id = (await other.waitFor(/session (ses_[\w-]+)/)).match(/session (ses_[\w-]+)/)?.[1] ?? "";
    const screen = await open();
    await screen.type(`/sessions delete ${id}`, "Enter");
    await screen.waitFor("is open in another lembas process");
    const db = openDb(join(box.stateDir, "lembas.db"));
    const still = db.query("SELECT id FROM sessions WHERE id = ?").get(id);
    db.close();
    expect(still).not.toBeNull();
  });
});
