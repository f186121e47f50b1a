import type { Session } from "../engine/session.ts";

/** A turn's tokens as the SDK 2.4 schema's (unstable) `usage` of a session/prompt answer names them. */
export type TurnUsage = { inputTokens: number; outputTokens: number; totalTokens: number };

/**
 * Counts the tokens of one turn's model calls (its helpers' too) from the session's usage events
 * between the turn's start and its end; `stop` gives them (null when no call reported any).
 */
export function countTurnUsage(session: Session, turnId: string): { stop(): TurnUsage | null } {
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let running = false;
  let reported = false;
  const unsubscribe = session.bus.subscribe((event) => {
    if (event.type === "task" && event.turnId === turnId) running = event.state === "start";
    if (event.type !== "usage" || !running) return;
    reported = true;
    usage.inputTokens += event.promptTokens;
    usage.outputTokens += event.completionTokens;
    usage.totalTokens += event.promptTokens + event.completionTokens;
  });
  return {
    stop() {
      unsubscribe();
      return reported ? usage : null;
    },
  };
}
