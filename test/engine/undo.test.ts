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
