/**
 * tui/history-rows.ts's hand reader against the records' schemas (engine/records.ts), row by row:
 * each field of each kind of row spoilt in turn (missing, of each wrong kind, null), given a field
 * the schema does not name, or holding odd strings — the hand reader either leaves the row to the
 * schema (null) or reads it to exactly what the schema reads.
 */
import { expect, test } from "bun:test";
import { parseStored } from "../../src/engine/records.ts";
import type { MessageRow } from "../../src/store/messages.ts";
import { storedByHand } from "../../src/tui/history-rows.ts";

const row = (role: string, body: unknown): MessageRow => ({ id: 1, seq: 1, role, body, turnId: "turn_1", createdAt: 0 });
const diff = { path: "/p/a.ts", oldText: "a", newText: "b" };
const GOOD: { role: string; body: Record<string, unknown> }[] = [
  { role: "user", body: { text: "/review body", display: "/review", steer: false, mode: "edit" } },
  {
    role: "assistant",
    body: { text: "t", reasoning: "r", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }], partial: true, carry: [{ api: "responses", item: { type: "reasoning" } }] },
  },
  {
    role: "tool",
    body: {
      callId: "c2",
      name: "edit",
      output: "edited",
      isError: false,
      args: { path: "a.ts" },
      diffs: [diff],
      title: "Edit a.ts",
      kind: "edit",
      paths: ["/p/a.ts"],
      helpers: [{ title: "Edit b.ts", status: "completed", diffs: [diff] }],
    },
  },
];

/** Every way to spoil a body one field at a time, nested lists' first items too, and a field the schema does not name. */
function spoilt(body: Record<string, unknown>): unknown[] {
  const wrong = [undefined, null, 1, "s", true, [], {}, [1], [{}], "\ud800 lone half", "x".repeat(100_000)];
  const out: unknown[] = [{ ...body, unnamed: "kept?" }, { ...body, unnamed: null }];
  for (const [key, value] of Object.entries(body)) {
    for (const bad of wrong) out.push({ ...body, [key]: bad });
    if (Array.isArray(value) && value.length > 0 && typeof value[0] === "object") {
      for (const inner of spoilt(value[0] as Record<string, unknown>)) out.push({ ...body, [key]: [inner, ...value.slice(1)] });
    }
  }
  return out;
}

test("a row spoilt in any one way is left to the schema, or read by hand exactly as the schema reads it", () => {
  let byHand = 0;
  for (const { role, body } of GOOD) {
    for (const bad of spoilt(body)) {
      const hand = storedByHand([row(role, bad)]);
      if (hand === null) continue;
      byHand++;
      const schema = parseStored(row(role, bad));
      expect({ body: bad, read: hand }).toEqual({ body: bad, read: schema ? [schema] : [] });
    }
  }
  expect(byHand).toBeGreaterThan(20);
});

test("a row whose body the store could not read as JSON (given as undefined) is skipped by hand, as the schemas skip it", () => {
  for (const role of ["user", "assistant", "tool"]) {
    expect(parseStored(row(role, undefined))).toBeNull();
    expect(storedByHand([row(role, undefined), row("user", { text: "kept" })])).toEqual([{ seq: 1, turnId: "turn_1", role: "user", body: { text: "kept" } }]);
  }
});
