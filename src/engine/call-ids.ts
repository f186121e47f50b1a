import type { StoredMessage } from "./records.ts";

/** An id for a call the server gave none, or one the session already used: OpenAI's shape. */
export function newCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** Every tool-call id a conversation has used: its calls' and its results'. */
export function usedCallIds(messages: readonly StoredMessage[]): Set<string> {
  const used = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const call of m.body.toolCalls) used.add(call.id);
    else if (m.role === "tool") used.add(m.body.callId);
  }
  return used;
}

/**
 * The ids of one reply's calls, by the index the stream gave each. A call keeps the server's id
 * unless the session used it already or another call of the reply has it (servers that number
 * calls per reply say `call_0` in every step; some give two calls one id): then, as when the
 * server gave none, it gets one of its own. A client keys its cards by the id (ACP: "unique
 * within the session"), and the model is sent each call with its result under the id it is stored
 * with, so the pairing holds whatever the server said.
 */
export class CallIds {
  private readonly byIndex = new Map<number, string>();
  private readonly taken: Set<string>;

  constructor(used: ReadonlySet<string> = new Set()) {
    this.taken = new Set(used);
  }

  of(index: number, given?: string): string {
    const known = this.byIndex.get(index);
    if (known) return known;
    let id = given && !this.taken.has(given) ? given : newCallId();
    while (this.taken.has(id)) id = newCallId();
    this.taken.add(id);
    this.byIndex.set(index, id);
    return id;
  }

  /** How many calls the reply started. */
  get size(): number {
    return this.byIndex.size;
  }
}
