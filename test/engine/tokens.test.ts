import { expect, test } from "bun:test";
import type { StoredMessage } from "../../src/engine/records.ts";
import { HistoryTally, storedTokens } from "../../src/engine/tokens.ts";

const user = (seq: number, text: string): StoredMessage => ({ seq, turnId: "t", role: "user", body: { text } });
const tool = (seq: number, output: string): StoredMessage => ({ seq, turnId: "t", role: "tool", body: { callId: "c", name: "read", output, isError: false } });
const sum = (messages: StoredMessage[], after: number | null) => messages.filter((m) => m.seq > (after ?? 0)).reduce((n, m) => n + storedTokens(m), 0);

test("the tally counts what was added since the last step, and counts afresh when the history was read again or summarised", () => {
  const tally = new HistoryTally();
  const history = [user(1, "a".repeat(350)), tool(2, "b".repeat(700))];
  expect(tally.count([...history], null)).toBe(sum(history, null));
  history.push(user(3, "c".repeat(35)));
  expect(tally.count([...history], null)).toBe(sum(history, null));
  // A summary covering the first two messages.
  expect(tally.count([...history], 2)).toBe(sum(history, 2));
  // Undo: the history read again from the store, shorter, as new objects.
  const reread = [user(1, "a".repeat(350))];
  expect(tally.count(reread, null)).toBe(sum(reread, null));
  // Another process wrote to the session: same seqs, other messages.
  const other = [user(1, "a".repeat(350)), tool(2, "z".repeat(7000))];
  expect(tally.count(other, null)).toBe(sum(other, null));
  expect(storedTokens(tool(9, "x".repeat(3500)))).toBeGreaterThan(1000);
});
