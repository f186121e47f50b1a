/**
 * The session's rewind and the engine's fork, on the real engine: a background job's changes are
 * said, not restored; an unknown turn is a sentence; a fork keeps its own attachments.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../src/errors.ts";
import { appendMessage } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

test("a rewind over a turn that started a job says the job's changes are not restored; the turn's own file is", async () => {
  const session = await h.session({ mode: "auto" });
  h.model.push(step({ text: "hi" }));
  await session.prompt({ text: "hello" });
  h.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "by the turn\n" } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 30", run_in_background: true } }] }),
    step({ text: "done" }),
  );
  await session.prompt({ text: "write and start a job" });
  const [, second] = session.messages().filter((m) => m.role === "user");
  if (!second?.turnId) throw new Error("the second prompt has no turn id");
  const rewound = session.rewind(second.turnId, "both");
  expect(rewound).toMatchObject({ prompt: "write and start a job", turns: 1, files: ["one.txt"] });
  expect(rewound.skipped).toContainEqual({ path: "(job1)", why: "`sleep 30` ran in the background, outside the turn's undo: what it changed is not restored" });
  expect(existsSync(join(h.project, "one.txt"))).toBe(false);
  expect(session.messages().filter((m) => m.role === "user").map((m) => m.body.text)).toEqual(["hello"]);
  expect(() => session.rewind("turn-unknown", "both")).toThrow(new UserError("there is no turn turn-unknown in this session (/rewind lists its turns)", 2));
});

test("a fork has its own attachments: they outlive the original's delete, and its messages name them", async () => {
  const session = await h.session();
  const dir = join(h.box.stateDir, "attachments", session.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "shot.png"), "png bytes");
  const attachment = { name: "shot.png", mimeType: "image/png", size: 9, path: join(dir, "shot.png") };
  appendMessage(h.db, session.id, "user", { text: "look", attachments: [attachment] }, "turn-1");
  appendMessage(h.db, session.id, "assistant", { text: "seen", reasoning: "", toolCalls: [] }, "turn-1");
  const fork = h.engine.fork(session.id, null, { origin: "terminal" });
  await h.engine.delete(session.id);
  const [first] = fork.messages();
  const kept = first?.role === "user" ? first.body.attachments?.[0]?.path : undefined;
  expect(kept).toBe(join(h.box.stateDir, "attachments", fork.id, "shot.png"));
  expect(readFileSync(kept ?? "", "utf8")).toBe("png bytes");
  expect(fork.messages().map((m) => m.role)).toEqual(["user", "assistant"]);
});

/** How many files of the session's turns undo keeps content of. */
function keptFiles(sessionId: string): number {
  return h.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM undo_files WHERE session_id = ?").get(sessionId)?.n ?? 0;
}

test("a conversation-only rewind leaves the files and drops what undo kept of the turns it cut", async () => {
  const session = await h.session({ mode: "auto" });
  h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "first\n" } }] }), step({ text: "one" }));
  await session.prompt({ text: "write one" });
  h.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "two.txt", content: "second\n" } }] }), step({ text: "two" }));
  await session.prompt({ text: "write two" });
  expect(keptFiles(session.id)).toBe(2);
  const [, second] = session.messages().filter((m) => m.role === "user");
  if (!second?.turnId) throw new Error("the second prompt has no turn id");
  expect(session.rewind(second.turnId, "conversation")).toMatchObject({ turns: 1, files: [], skipped: [] });
  expect(readFileSync(join(h.project, "two.txt"), "utf8")).toBe("second\n");
  expect(keptFiles(session.id)).toBe(1);
  // The turn the conversation still holds is undone as before.
  expect(session.undo()).toMatchObject({ prompt: "write one", files: ["one.txt"] });
  expect(existsSync(join(h.project, "one.txt"))).toBe(false);
});
