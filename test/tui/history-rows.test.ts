/**
 * tui/history-rows.ts reads a session's stored rows by hand for the resumed history drawn before zod
 * is loaded: a row it takes must read as engine/records.ts's schemas read it, and a row it is not
 * sure of (a field the schema would refuse, or one it leaves to the schema) must be left to them.
 */
import { describe, expect, test } from "bun:test";
import { parseStored } from "../../src/engine/records.ts";
import type { MessageRow } from "../../src/store/messages.ts";
import { storedByHand } from "../../src/tui/history-rows.ts";

let seq = 0;
const row = (role: string, body: unknown): MessageRow => ({ id: ++seq, seq, role, body, turnId: "turn_1", createdAt: 0 });

const diff = { path: "/p/a.ts", oldText: "a", newText: "b" };
/** Rows as the engine writes them: the hand reader must take each, as the schema does. */
const TAKEN: MessageRow[] = [
  row("user", { text: "fix it" }),
  row("user", { text: "/review body", display: "/review", steer: false, mode: "edit" }),
  row("assistant", { text: "Looking.", reasoning: "", toolCalls: [] }),
  row("assistant", {
    text: "",
    reasoning: "where is it",
    toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"a.ts"}' }],
    partial: true,
    carry: [{ api: "responses", item: { type: "reasoning", id: "r1" } }],
  }),
  row("tool", { callId: "c1", name: "read", output: "1 a", isError: false }),
  row("tool", {
    callId: "c2",
    name: "edit",
    output: "edited",
    isError: false,
    args: { path: "a.ts" },
    diffs: [diff, { path: "/p/new.ts", oldText: null, newText: "x" }],
    title: "Edit a.ts",
    kind: "edit",
    paths: ["/p/a.ts"],
    helpers: [{ title: "Read b.ts", status: "completed" }, { title: "Edit b.ts", status: "completed", diffs: [diff] }],
  }),
];

/** Rows the hand reader must leave to the schema (which takes some and skips the others). */
const LEFT: MessageRow[] = [
  row("user", { text: "x", attachments: [{ name: "a.png", mimeType: "image/png", size: 3, path: "/i/a.png" }] }),
  row("user", { text: "x", blocks: [{ type: "text", text: "x" }] }),
  row("user", { text: "x", mode: "sideways" }),
  row("user", { text: "x", display: null }),
  row("user", { text: 3 }),
  row("user", "just text"),
  row("user", ["x"]),
  row("assistant", { text: "x", toolCalls: [] }),
  row("assistant", { text: "x", reasoning: "", toolCalls: [{ id: "c", name: "read", arguments: { path: "a" } }] }),
  row("assistant", { text: "x", reasoning: "", toolCalls: [{ id: "c", name: "read", arguments: "{}", extraContent: { google: {} } }] }),
  row("assistant", { text: "x", reasoning: "", toolCalls: [], carry: [{ api: "chat", item: {} }] }),
  row("assistant", { text: "x", reasoning: "", toolCalls: [], partial: "yes" }),
  row("tool", { callId: "c", name: "read", output: "o", isError: "no" }),
  row("tool", { callId: "c", name: "read", output: "o", isError: false, images: [{ mimeType: "image/png", data: "AA", path: "/i" }] }),
  row("tool", { callId: "c", name: "edit", output: "o", isError: false, diffs: [{ path: "/p", newText: "b" }] }),
  row("tool", { callId: "c", name: "edit", output: "o", isError: false, paths: "/p" }),
  row("tool", { callId: "c", name: "task", output: "o", isError: false, helpers: [{ title: "t" }] }),
];

const bySchema = (rows: readonly MessageRow[]) => rows.map(parseStored).filter((m) => m !== null);

describe("a session's rows read by hand", () => {
  test("take each row the engine writes, as the schema reads it", () => {
    for (const one of TAKEN) expect({ row: one.body, read: storedByHand([one]) }).toEqual({ row: one.body, read: bySchema([one]) });
    expect(storedByHand(TAKEN)).toEqual(bySchema(TAKEN));
  });

  test("leave a row to the schema when a field is one it would refuse, or one it reads itself", () => {
    for (const one of LEFT) expect({ row: one.body, read: storedByHand([one]) }).toEqual({ row: one.body, read: null });
    // One such row among the others: all of them go to the schema.
    expect(storedByHand([...TAKEN, LEFT[0] as MessageRow])).toBeNull();
  });

  test("skip a role the schema skips", () => {
    const odd = row("system", { text: "x" });
    expect(bySchema([odd])).toEqual([]);
    expect(storedByHand([odd, ...TAKEN])).toEqual(bySchema([odd, ...TAKEN]));
  });
});
