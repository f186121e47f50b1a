/**
 * session/load's replay (src/acp/history-replay.ts) lets each page's updates go before it reads
 * the next: the stdio transport writes what it was handed at the next turn of the event loop, and
 * a replay that went on in microtasks held its first updates back until the transport's bound of
 * unwritten bytes stopped it (the first write of a 200-turn load was 67 KB, after 200 rows). The
 * first page is small, so that the editor has the start of the history at once.
 */
import { afterEach, expect, test } from "bun:test";
import { replayHistory } from "../../src/acp/history-replay.ts";
import { appendMessage } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness } from "../support/engine.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

test("the replay gives the event loop a turn after its first page, before it reads the next: the first updates leave then", async () => {
  h = await engineHarness();
  const session = await h.session();
  const db = h.db;
  db.transaction(() => {
    for (let i = 1; i <= 150; i++) {
      appendMessage(db, session.id, "user", { text: `question ${i}` }, `turn-${i}`);
      appendMessage(db, session.id, "assistant", { text: `answer ${i}`, reasoning: "", toolCalls: [] }, `turn-${i}`);
    }
  })();
  const sent: string[] = [];
  // Where the event loop's first turn came: the transport writes its burst there.
  let firstTurnAt: number | null = null;
  await replayHistory(db, session, async (update) => {
    if (sent.length === 0) setImmediate(() => (firstTurnAt = sent.length));
    sent.push(`${update.sessionUpdate}:${String((update.content as { text?: unknown }).text)}`);
  });
  expect(sent).toEqual(Array.from({ length: 150 }, (_, i) => [`user_message_chunk:question ${i + 1}`, `agent_message_chunk:answer ${i + 1}`]).flat());
  // The first page's rows (a row each update here), and none of the next page's.
  expect(firstTurnAt).not.toBeNull();
  expect(firstTurnAt ?? 0).toBeGreaterThan(0);
  expect(firstTurnAt ?? 0).toBeLessThan(50);
});
