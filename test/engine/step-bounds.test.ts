import { afterEach, expect, test } from "bun:test";
import { KeptText, STEP_TEXT_LIMIT } from "../../src/engine/step-text.ts";
import { type EngineHarness, engineHarness, ofType, step } from "../support/engine.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** `total` characters in chunks of 64 KiB, as a server stuck in a loop streams them. */
const flood = (letter: string, total: number): string[] => {
  const chunk = letter.repeat(64 * 1024);
  return Array.from({ length: Math.ceil(total / chunk.length) }, () => chunk);
};

test("a step that streams more answer and reasoning than the bound stores at most the bound of each, with what was left out said", async () => {
  h = await engineHarness();
  const over = STEP_TEXT_LIMIT + 200 * 1024;
  const text = flood("a", over);
  const reasoning = flood("r", over);
  const sent = (chunks: string[]) => chunks.reduce((n, c) => n + c.length, 0);
  h.model.push(step({ text, reasoning }));
  const session = await h.session();
  const answer = await session.prompt({ text: "go" });
  expect(answer.stopReason).toBe("end_turn");

  // Measured from the store: the row as SQLite holds it.
  const row = h.db.query<{ bytes: number; body: string }, [string]>("SELECT length(CAST(body AS BLOB)) AS bytes, body FROM messages WHERE session_id = ? AND role = 'assistant'").get(session.id);
  expect(row).not.toBeNull();
  expect(row?.bytes ?? Infinity).toBeLessThan(2 * STEP_TEXT_LIMIT + 1_000);
  const body = JSON.parse(row?.body ?? "{}") as { text: string; reasoning: string };
  expect(body.text.startsWith("a".repeat(STEP_TEXT_LIMIT))).toBe(true);
  expect(body.text.slice(STEP_TEXT_LIMIT)).toBe(
    `\n\n[… ${(sent(text) - STEP_TEXT_LIMIT).toLocaleString("en-US")} more characters of this answer left out: lembas keeps at most ${STEP_TEXT_LIMIT.toLocaleString("en-US")} of one model call's answer]`,
  );
  expect(body.reasoning.slice(STEP_TEXT_LIMIT)).toContain(`${(sent(reasoning) - STEP_TEXT_LIMIT).toLocaleString("en-US")} more characters of this reasoning left out`);

  // What the person was shown is what was kept.
  const events = h.events(session);
  expect(ofType(events, "text").map((e) => e.delta).join("")).toBe(body.text);
  expect(ofType(events, "reasoning").map((e) => e.delta).join("")).toBe(body.reasoning);
});

test("KeptText keeps pieces up to its bound, cuts the one that crosses it, and says once how much it left out", () => {
  const kept = new KeptText("answer", 10);
  expect(kept.add("12345")).toBe("12345");
  expect(kept.add("6789abc")).toBe("6789a");
  expect(kept.add("more")).toBe("");
  expect(kept.close()).toBe("\n\n[… 6 more characters of this answer left out: lembas keeps at most 10 of one model call's answer]");
  expect(kept.close()).toBeNull();
  expect(kept.text).toBe("123456789a\n\n[… 6 more characters of this answer left out: lembas keeps at most 10 of one model call's answer]");
  const small = new KeptText("reasoning", 10);
  small.add("short");
  expect(small.close()).toBeNull();
  expect(small.text).toBe("short");
});
