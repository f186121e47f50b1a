import type { ChatMessage } from "./request.ts";

/** A server's rule for tool-call ids (dialects.ts: Mistral's nine letters and digits). */
export type ToolCallIdRule = { pattern: RegExp; length: number };

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * The messages with every tool-call id the server's rule refuses replaced by one it takes: the
 * same id always becomes the same one, so an assistant's call and the tool result naming it still
 * match. Ids made elsewhere (another server's, a call written as text) are what this is for; ids
 * the server made itself pass as they are. No rule, or nothing to change: the same array.
 */
export function fitToolCallIds(messages: ChatMessage[], rule: ToolCallIdRule | null): ChatMessage[] {
  if (!rule) return messages;
  const fit = (id: string) => (rule.pattern.test(id) ? id : derivedId(id, rule.length));
  let changed = false;
  const out = messages.map((m): ChatMessage => {
    if (m.role === "tool" && !rule.pattern.test(m.tool_call_id)) {
      changed = true;
      return { ...m, tool_call_id: fit(m.tool_call_id) };
    }
    if (m.role === "assistant" && m.tool_calls?.some((c) => !rule.pattern.test(c.id))) {
      changed = true;
      return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: fit(c.id) })) };
    }
    return m;
  });
  return changed ? out : messages;
}

/** `length` letters and digits from a 64-bit hash of the id (62^9 < 2^64: no two close ids meet in practice). */
function derivedId(id: string, length: number): string {
  let n = BigInt.asUintN(64, BigInt(Bun.hash(id)));
  let out = "";
  for (let i = 0; i < length; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}
