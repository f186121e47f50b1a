import type { Interaction, PermissionDecision, PermissionRequest } from "../engine/interaction.ts";
import type { PlanOutcome, Question, QuestionOutcome } from "../tools/tool.ts";

/** One thing the engine waits on the person for, keyed by its tool call. */
export type Card =
  | { kind: "permission"; sessionId: string; callId: string; request: PermissionRequest; answer(decision: PermissionDecision): void }
  | { kind: "question"; sessionId: string; callId: string; questions: Question[]; why?: string; answer(outcome: QuestionOutcome): void }
  | { kind: "plan"; sessionId: string; callId: string; path: string; text: string; answer(outcome: PlanOutcome): void };

export type CardListener = (change: { type: "open"; card: Card } | { type: "settled"; callId: string }) => void;

/**
 * The terminal's cards: the engine's Interaction for the session the terminal runs. Each request
 * becomes a card that waits until the person answers it or the turn lets go of it (its signal);
 * several can wait at once. It knows nothing of the screen, which listens.
 */
export class CardDesk {
  private readonly open = new Map<string, Card>();
  private readonly listeners = new Set<CardListener>();

  listen(listener: CardListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The cards waiting, oldest first. */
  waiting(): Card[] {
    return [...this.open.values()];
  }

  readonly interaction: Interaction = {
    permission: (request, signal) =>
      this.wait<PermissionDecision>(signal, { outcome: "deny", feedback: "the turn ended before the person answered", unanswered: true }, (answer) => ({ kind: "permission", sessionId: request.sessionId, callId: request.callId, request, answer })),
    question: (request, signal) =>
      this.wait<QuestionOutcome>(signal, { outcome: "dismissed" }, (answer) => ({
        kind: "question",
        sessionId: request.sessionId,
        callId: request.callId,
        questions: request.questions,
        ...(request.why ? { why: request.why } : {}),
        answer,
      })),
    plan: (request, signal) => this.wait<PlanOutcome>(signal, { outcome: "dismissed" }, (answer) => ({ kind: "plan", sessionId: request.sessionId, callId: request.callId, path: request.path, text: request.text, answer })),
  };

  private wait<T>(signal: AbortSignal, gone: T, make: (answer: (value: T) => void) => Card): Promise<T> {
    return new Promise<T>((resolve) => {
      let card: Card | null = null;
      const settle = (value: T) => {
        if (!card || !this.open.has(card.callId)) return;
        this.open.delete(card.callId);
        signal.removeEventListener("abort", onAbort);
        this.emit({ type: "settled", callId: card.callId });
        resolve(value);
      };
      const onAbort = () => settle(gone);
      card = make(settle);
      if (signal.aborted) return resolve(gone);
      this.open.set(card.callId, card);
      signal.addEventListener("abort", onAbort, { once: true });
      this.emit({ type: "open", card });
    });
  }

  private emit(change: Parameters<CardListener>[0]): void {
    for (const listener of this.listeners) listener(change);
  }
}
