import type { EngineEvent } from "../bus/index.ts";

type Delta = Extract<EngineEvent, { type: "text" | "reasoning" }>;

/**
 * Joins runs of text (or reasoning) deltas into one before they go out: the model's stream
 * arrives a network read at a time, and every delta of one read is sent as one event at the end
 * of it (a microtask later), so a fast stream costs a message per read instead of one per token,
 * while a slow one still goes out token by token with no added delay. Any other event flushes
 * what is pending first, so the order of events never changes; so does `flush`, for what is sent
 * by another way (an approval asked).
 */
export function coalescer(send: (event: EngineEvent) => void): ((event: EngineEvent) => void) & { flush(): void } {
  let pending: Delta | null = null;
  let parts: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const out: Delta = { type: pending.type, delta: parts.length === 1 ? (parts[0] ?? "") : parts.join("") };
    pending = null;
    parts = [];
    send(out);
  };
  const forward = (event: EngineEvent) => {
    if (event.type !== "text" && event.type !== "reasoning") {
      flush();
      send(event);
      return;
    }
    if (pending?.type !== event.type) {
      flush();
      pending = event;
    }
    parts.push(event.delta);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  };
  return Object.assign(forward, { flush });
}
