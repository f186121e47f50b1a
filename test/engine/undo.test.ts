import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendMessage, listMessages } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, isStep, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

test("undo restores created, changed and deleted files byte for byte, including what bash did", async () => {
  const crlf = Buffer.from("line one\r\nline two\r\n");
  const binary = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 7]);
  writeFileSync(join(h.project, "crlf.txt"), crlf);
  writeFileSync(join(h.project, "blob.bin"), binary);
  writeFileSync(join(h.project, "script.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(h.project, "script.sh"), 0o755);
  writeFileSync(join(h.project, "keep.txt"), "untouched\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "crlf.txt" } }] }),
    step({ toolCalls: [{ name: "edit", arguments: { path: "crlf.txt", old_string: "line two", new_string: "line 2" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "new/made.txt", content: "new file\n" } }] }),
    step({
      toolCalls: [{ name: "bash", arguments: { command: "rm blob.bin && printf 'changed' > script.sh && echo created > by-bash.txt" } }],
    }),
    step({ text: "done" }),
  );
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "change things" });
  expect(readFileSync(join(h.project, "crlf.txt"), "utf8")).toBe("line one\r\nline 2\r\n");
  expect(existsSync(join(h.project, "blob.bin"))).toBe(false);
  expect(readFileSync(join(h.project, "by-bash.txt"), "utf8")).toBe("created\n");

  const undone = session.undo();
  expect(undone?.prompt).toBe("change things");
  expect([...(undone?.files ?? [])].sort()).toEqual(["blob.bin", "by-bash.txt", "crlf.txt", "new/made.txt", "script.sh"]);
  expect(readFileSync(join(h.project, "crlf.txt")).equals(crlf)).toBe(true);
  expect(readFileSync(join(h.project, "blob.bin")).equals(binary)).toBe(true);
  expect(readFileSync(join(h.project, "script.sh"), "utf8")).toBe("#!/bin/sh\necho hi\n");
  expect(statSync(join(h.project, "script.sh")).mode & 0o777).toBe(0o755);
  expect(existsSync(join(h.project, "by-bash.txt"))).toBe(false);
  expect(existsSync(join(h.project, "new/made.txt"))).toBe(false);
  expect(readFileSync(join(h.project, "keep.txt"), "utf8")).toBe("untouched\n");
  // The turn is gone from the conversation too.
  expect(listMessages(h.db, session.id)).toHaveLength(0);
});

test("undo with no turn is null, and a turn that changed nothing restores nothing", async () => {
  const session = await h.session();
  expect(session.undo()).toBeNull();
  h.model.push(step({ text: "just talk" }));
  await session.prompt({ text: "talk" });
  await session.idle();
  expect(session.undo()).toEqual({ prompt: "talk", files: [], skipped: [] });
});

test("only the last turn is undone; the one before stays", async () => {
  h.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "A" } }] }),
    step({ text: "ok" }),
    step({ toolCalls: [{ name: "write", arguments: { path: "b.txt", content: "B" } }] }),
    step({ text: "ok" }),
  );
  const session = await h.session();
  await session.prompt({ text: "first" });
  await session.idle();
  await session.prompt({ text: "second" });
  expect(session.undo()?.files).toEqual(["b.txt"]);
  expect(existsSync(join(h.project, "a.txt"))).toBe(true);
  expect(existsSync(join(h.project, "b.txt"))).toBe(false);
});

test("after undo the model is sent the turns before it and never the undone one", async () => {
  h.model.push(step({ text: "one done" }), step({ text: "two done" }), step({ text: "three done" }));
  const session = await h.session();
  await session.prompt({ text: "turn one" });
  await session.prompt({ text: "turn two" });
  await session.idle();
  expect(session.undo()?.prompt).toBe("turn two");
  await session.prompt({ text: "turn three" });
  const steps = (await h.model.waitForRequests(3)).filter((r) => isStep(r.body));
  const last = JSON.stringify(steps.at(-1)?.body.messages);
  expect(last).toContain("turn one");
  expect(last).toContain("one done");
  expect(last).not.toContain("turn two");
  expect(last).not.toContain("two done");
  expect(session.messages().map((m) => m.seq)).toEqual(listMessages(h.db, session.id).map((m) => m.seq));
});

test("what another process wrote to the session meanwhile is in the next request (the history is read again)", async () => {
  h.model.push(step({ text: "first answer" }), step({ text: "second answer" }));
  const session = await h.session();
  await session.prompt({ text: "turn one" });
  await session.idle();
  // As a process that took the session over (its hold gone stale) would have written it.
  appendMessage(h.db, session.id, "user", { text: "written elsewhere" }, null);
  await session.prompt({ text: "turn two" });
  const steps = (await h.model.waitForRequests(2)).filter((r) => isStep(r.body));
  expect(JSON.stringify(steps.at(-1)?.body.messages)).toContain("written elsewhere");
  expect(session.messages().map((m) => m.seq)).toEqual(listMessages(h.db, session.id).map((m) => m.seq));
});

test("a file the person changed after the turn is left alone by undo, said with a reason, and keeps the person's content", async () => {
  writeFileSync(join(h.project, "mine.txt"), "before\n");
  writeFileSync(join(h.project, "theirs.txt"), "before\n");
  h.model.push(
    step({ toolCalls: [{ name: "read", arguments: { path: "mine.txt" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "mine.txt", content: "by the turn\n" } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: "echo by-bash > theirs.txt && echo by-bash > bash-mine.txt" } }] }),
    step({ text: "done" }),
  );
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "change them" });
  expect(readFileSync(join(h.project, "mine.txt"), "utf8")).toBe("by the turn\n");
  writeFileSync(join(h.project, "mine.txt"), "the person's edit\n");
  writeFileSync(join(h.project, "bash-mine.txt"), "the person's too\n");

  const undone = session.undo();
  expect(undone?.files).toEqual(["theirs.txt"]);
  expect(undone?.skipped.map((s) => s.path).sort()).toEqual(["bash-mine.txt", "mine.txt"]);
  for (const s of undone?.skipped ?? []) expect(s.why).toContain("changed after the turn");
  expect(readFileSync(join(h.project, "mine.txt"), "utf8")).toBe("the person's edit\n");
  expect(readFileSync(join(h.project, "bash-mine.txt"), "utf8")).toBe("the person's too\n");
  expect(readFileSync(join(h.project, "theirs.txt"), "utf8")).toBe("before\n");
});

test("files the turn created are deleted by undo only if unchanged since; one deleted stays deleted if re-created", async () => {
  writeFileSync(join(h.project, "doomed.txt"), "old\n");
  h.model.push(
    step({ toolCalls: [{ name: "write", arguments: { path: "made.txt", content: "made\n" } }] }),
    step({ toolCalls: [{ name: "write", arguments: { path: "kept.txt", content: "made\n" } }] }),
    step({ toolCalls: [{ name: "bash", arguments: { command: "echo x > by-bash.txt && rm doomed.txt" } }] }),
    step({ text: "done" }),
  );
  const session = await h.session({ mode: "auto" });
  await session.prompt({ text: "make files" });
  writeFileSync(join(h.project, "kept.txt"), "now the person's\n");
  writeFileSync(join(h.project, "doomed.txt"), "re-created by the person\n");

  const undone = session.undo();
  expect(undone?.files.sort()).toEqual(["by-bash.txt", "made.txt"]);
  expect(undone?.skipped.map((s) => s.path).sort()).toEqual(["doomed.txt", "kept.txt"]);
  expect(existsSync(join(h.project, "made.txt"))).toBe(false);
  expect(existsSync(join(h.project, "by-bash.txt"))).toBe(false);
  expect(readFileSync(join(h.project, "kept.txt"), "utf8")).toBe("now the person's\n");
  expect(readFileSync(join(h.project, "doomed.txt"), "utf8")).toBe("re-created by the person\n");
});

test("a session keeps at most its byte bound of pre-images: older turns go first, the last one never", async () => {
  const { recordPreImage, trimPreImages, preImagesOf } = await import("../../src/store/undo.ts");
  const session = await h.session();
  const image = (name: string) => ({ path: join(h.project, name), existed: true, content: new Uint8Array(1000), mode: 0o644 });
  recordPreImage(h.db, session.id, "t1", image("a"));
  await Bun.sleep(2);
  recordPreImage(h.db, session.id, "t2", image("b"));
  await Bun.sleep(2);
  recordPreImage(h.db, session.id, "t3", image("c"));
  trimPreImages(h.db, session.id, 2500);
  expect(preImagesOf(h.db, session.id, "t1")).toHaveLength(0);
  expect(preImagesOf(h.db, session.id, "t2")).toHaveLength(1);
  trimPreImages(h.db, session.id, 10);
  expect(preImagesOf(h.db, session.id, "t2")).toHaveLength(0);
  expect(preImagesOf(h.db, session.id, "t3")).toHaveLength(1);
});
