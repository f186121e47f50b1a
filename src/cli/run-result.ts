import type { EngineEvent } from "../bus/index.ts";
import type { TurnAnswer } from "../engine/session.ts";
import { endReason } from "../engine/turn-queue.ts";

/**
 * The last line of `lembas run --format json`: how the run ended, in one object a script can
 * trust. `ok` is true exactly when the exit code is 0.
 */
export type RunResult = {
  type: "result";
  ok: boolean;
  /** The turn's stop reason; "error" when the run failed (before a turn or in it). */
  stopReason: TurnAnswer["stopReason"] | "error" | null;
  error: string | null;
  /** The session kept in the store, null when the run kept none (it failed before its first answer). */
  sessionId: string | null;
  turnId: string | null;
  durationMs: number;
  /**
   * Summed over the run's model calls, as the server reported them; the cache's read and write
   * tokens (counted in promptTokens too) and the reasoning tokens only when a server said any.
   */
  usage: { promptTokens: number; completionTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number };
  /** What the run cost, when the connection says (none does yet): null otherwise. */
  cost: number | null;
};

/** Counts what a run's events say of it: its tokens, and whether the model answered at all. */
export class RunTally {
  readonly startedAt = Date.now();
  promptTokens = 0;
  completionTokens = 0;
  private extra = { cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  /** The model answered something (text, reasoning, a tool call): the session has a turn worth keeping. */
  answered = false;

  see(event: EngineEvent): void {
    if (event.type === "usage") {
      this.promptTokens += event.promptTokens;
      this.completionTokens += event.completionTokens;
      this.extra.cacheReadTokens += event.cacheReadTokens ?? 0;
      this.extra.cacheWriteTokens += event.cacheWriteTokens ?? 0;
      this.extra.reasoningTokens += event.reasoningTokens ?? 0;
    }
    if (event.type === "text" || event.type === "reasoning" || event.type === "tool_call_delta" || event.type === "tool_start" || event.type === "usage") this.answered = true;
  }

  result(end: { answer?: TurnAnswer; error?: string; cancelled?: true; sessionId: string | null }): RunResult {
    const { answer } = end;
    const error = end.error ?? answer?.error ?? null;
    // The turn's own end as its events said it (done, task), or the run's when it failed before a turn.
    const stopReason = end.cancelled ? "cancelled" : answer ? endReason({ stopReason: answer.stopReason, ...(error ? { error } : {}) }) : error ? "error" : null;
    return {
      type: "result",
      ok: error === null && stopReason === "end_turn",
      stopReason,
      error,
      sessionId: end.sessionId,
      turnId: answer?.turnId ?? null,
      durationMs: Date.now() - this.startedAt,
      usage: { promptTokens: this.promptTokens, completionTokens: this.completionTokens, ...Object.fromEntries(Object.entries(this.extra).filter(([, n]) => n > 0)) },
      cost: null,
    };
  }
}
