import { parseStored, type StoredMessage } from "../engine/records.ts";
import { rowByHand } from "../engine/stored-by-hand.ts";

/**
 * A stored row read back for session/load's replay: by hand where the check takes it (zod's first
 * parses of the records were half the CPU of a 200-turn replay, which reads hundreds of rows once;
 * test/acp/replay-rows.test.ts holds the two together), any other row by parseStored, which says
 * whether it still parses.
 */
export function replayRow(row: { seq: number; role: string; body: unknown; turnId: string | null }): StoredMessage | null {
  const byHand = rowByHand(row);
  return byHand !== undefined ? byHand : parseStored(row);
}
