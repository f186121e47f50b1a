/**
 * `lembas -r ID --fork` (and `lembas run --session ID --fork`): a new session carrying the original's
 * conversation; the original stays as it was; one another process holds is refused, naming it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { isStep, step } from "../support/engine.ts";
import type { ScriptedModel } from "../support/model.ts";
import { modelProjectEach, type ProjectSandbox, runLembas } from "../support/run.ts";

let box: ProjectSandbox;
let model: ScriptedModel;
modelProjectEach((made) => ({ box, model } = made));

/** The person's messages the last step request carried. */
function lastUserTexts(): string[] {
  const last = model.requests.filter((r) => isStep(r.body)).at(-1);
  return (last?.body.messages ?? []).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

async function run(args: string[], answer: string): Promise<{ code: number; stderr: string; id: string | null }> {
  model.push(step({ text: answer }));
  const result = await runLembas(box, args, { cwd: box.project });
  return { code: result.code, stderr: result.stderr, id: /session (ses_[\w-]+) · continue it/.exec(result.stderr)?.[1] ?? null };
}

describe("lembas -r ID --fork", () => {
  test("the fork carries the whole conversation and goes on in a session of its own; the original stays as it was", async () => {
    const first = await run(["run", "first question"], "one");
    const id = first.id;
    if (!id) throw new Error(`no session id in: ${first.stderr}`);
    expect((await run(["run", "--session", id, "second question"], "two")).code).toBe(0);

    const forked = await run(["-r", id, "--fork", "a question in the fork"], "three");
    expect(forked.code).toBe(0);
    expect(forked.id).not.toBeNull();
    expect(forked.id).not.toBe(id);
    const carried = lastUserTexts().join("\n");
    expect(carried).toContain("first question");
    expect(carried).toContain("second question");
    expect(carried).toContain("a question in the fork");

    expect((await run(["run", "--session", id, "back in the original"], "four")).code).toBe(0);
    const original = lastUserTexts().join("\n");
    expect(original).toContain("second question");
    expect(original).toContain("back in the original");
    expect(original).not.toContain("a question in the fork");
  });

  test("a session another process holds is refused, naming where; an unknown one is a sentence and exit 2", async () => {
    const first = await run(["run", "first question"], "one");
    const id = first.id;
    if (!id) throw new Error(`no session id in: ${first.stderr}`);
    const db = openDb(join(box.stateDir, "lembas.db"));
    // This test's process stands for the service: alive, and not the program asked to fork.
    db.query("INSERT INTO holds (session_id, holder, pid, since, heartbeat) VALUES (?, 'service', ?, ?, ?)").run(id, process.pid, Date.now(), Date.now());
    db.close();
    const held = await runLembas(box, ["-r", id, "--fork", "go on"], { cwd: box.project });
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`session ${id} is open in another lembas process (service, pid ${process.pid})`);

    const unknown = await runLembas(box, ["-r", "ses_nothere", "--fork", "go on"], { cwd: box.project });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("there is no session ses_nothere");
    const alone = await runLembas(box, ["--fork", "go on"], { cwd: box.project });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--fork forks the session -r names");
  });
});
