import type { StoredMessage } from "../engine/records.ts";
import { rowByHand } from "../engine/stored-by-hand.ts";
import type { MessageRow } from "../store/messages.ts";

/**
 * A session's stored rows read back by hand (engine/stored-by-hand.ts), for the resumed history
 * drawn before zod is loaded (tui/resumed-history.ts: zod and the schemas were a good part of what
 * that frame waited for); null when any row is the schemas' to read, which then read them all, as
 * the engine does.
 */
export function storedByHand(rows: readonly MessageRow[]): StoredMessage[] | null {
  const out: StoredMessage[] = [];
  for (const row of rows) {
    if (schemasOwn(row.body)) return null;
    const message = rowByHand(row);
    if (message === undefined) return null;
    if (message) out.push(message);
  }
  return out;
}

/**
 * The fields this reader leaves to the schemas even where the hand would take them: the person's
 * attachments and an editor's blocks, a provider's own fields on a call, a result's images (rare in
 * a terminal's history; the schemas read them as they always have here).
 */
function schemasOwn(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  if (b.attachments !== undefined || b.blocks !== undefined || b.images !== undefined) return true;
  return Array.isArray(b.toolCalls) && b.toolCalls.some((c) => typeof c === "object" && c !== null && (c as Record<string, unknown>).extraContent !== undefined);
}
