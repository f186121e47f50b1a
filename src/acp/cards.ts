import { z } from "zod";
import type { Interaction } from "../engine/interaction.ts";
import type { Answer, PlanOutcome, Question, QuestionOutcome } from "../tools/tool.ts";
import { permissionParams, readDecision } from "./permission.ts";

/** An option's label is at most this long on a card; the model is given the whole one. */
export const CARD_LABEL_MAX = 240;

type CardKind = "permission" | "question" | "plan";
const METHOD: Record<CardKind, string> = {
  permission: "session/request_permission",
  question: "_lembas/question",
  plan: "_lembas/plan",
};

/** What a card's answer is: the client's result, the client cannot show it, or nobody answered in time. */
export type CardAnswer = { kind: "answered"; result: unknown } | { kind: "unsupported" } | { kind: "timeout" } | { kind: "cancelled" };

/** A connection cards are shown on: the link's current client for a session. */
export type CardTarget = {
  /** Whether this client can show a kind of card (questions and plans need protocol 2). */
  shows(kind: CardKind): boolean;
  /** Sends the card as a request; the promise settles with the client's answer. */
  send(method: string, params: unknown): Promise<unknown>;
  /** Tells the client to take a card down (answered elsewhere, or no longer waited for). */
  settled(toolCallId: string): void;
  /** The client answered a question or plan with method-not-found: it speaks protocol 1. */
  downgrade(): void;
};

type Card = { id: string; kind: CardKind; params: unknown; settle(answer: CardAnswer): void };

/**
 * A session's open cards (approvals, questions, plans), keyed by toolCallId. A card is shown on
 * the connection attached now and shown again on the next one if the link drops; the first answer
 * wins; with no answer within the timeout, the device stops waiting and the card is taken down.
 */
export class CardDesk {
  private readonly cards = new Map<string, Card>();
  private target: CardTarget | null = null;

  constructor(
    readonly sessionId: string,
    private readonly timeoutMs: number,
  ) {}

  /** A connection takes the session: every card still open is shown on it. */
  attach(target: CardTarget): void {
    this.target = target;
    for (const card of this.cards.values()) this.show(card, target);
  }

  detach(target: CardTarget): void {
    if (this.target === target) this.target = null;
  }

  get open(): number {
    return this.cards.size;
  }

  /** Opens a card and waits for its answer (or the timeout, or the turn's cancel). */
  ask(kind: CardKind, id: string, params: unknown, signal: AbortSignal): Promise<CardAnswer> {
    return new Promise((resolve) => {
      let done = false;
      const settle = (answer: CardAnswer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.cards.delete(id);
        if (answer.kind !== "answered") this.target?.settled(id);
        resolve(answer);
      };
      const onAbort = () => settle({ kind: "cancelled" });
      const timer = setTimeout(() => settle({ kind: "timeout" }), this.timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      const card: Card = { id, kind, params, settle };
      this.cards.set(id, card);
      if (signal.aborted) return settle({ kind: "cancelled" });
      if (this.target) this.show(card, this.target);
    });
  }

  private show(card: Card, target: CardTarget): void {
    if (!target.shows(card.kind)) {
      card.settle({ kind: "unsupported" });
      return;
    }
    target.send(METHOD[card.kind], card.params).then(
      (result) => card.settle({ kind: "answered", result }),
      (error: unknown) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (code === -32601 && card.kind !== "permission") {
          target.downgrade();
          card.settle({ kind: "unsupported" });
        }
        // Anything else (the link dropped): the card stays open and is shown on the next link.
      },
    );
  }
}

const AnswerSchema: z.ZodType<Answer> = z.union([
  z.object({ kind: z.literal("options"), labels: z.array(z.string()) }),
  z.object({ kind: z.literal("custom"), text: z.string() }),
  z.object({ kind: z.literal("back"), text: z.string() }),
  z.object({ kind: z.literal("skipped") }),
]);
const QuestionResult = z.union([
  z.looseObject({ outcome: z.literal("answered"), answers: z.array(AnswerSchema) }),
  z.looseObject({ outcome: z.literal("dismissed") }),
]);
const PlanResult = z.union([
  z.looseObject({ outcome: z.literal("approve"), mode: z.enum(["edit", "manual"]) }),
  z.looseObject({ outcome: z.literal("revise"), feedback: z.string() }),
  z.looseObject({ outcome: z.literal("dismissed") }),
]);

/** A question card's params: labels cut to what the card shows. */
export function questionParams(sessionId: string, toolCallId: string, questions: Question[], why: string | undefined, patient: boolean) {
  return {
    sessionId,
    toolCallId,
    ...(why ? { why } : {}),
    questions: questions.map((q) => ({
      header: q.header,
      question: q.question,
      multiple: q.multiple,
      options: q.options.map((o) => ({ ...o, label: o.label.slice(0, CARD_LABEL_MAX) })),
    })),
    ...(patient ? { _meta: { lembas: { patient: true } } } : {}),
  };
}

/** Reads a question card's answer: anything that is not one of the spec's shapes reads as dismissed. */
export function readQuestion(result: unknown, questions: Question[]): QuestionOutcome {
  const parsed = QuestionResult.safeParse(result);
  if (!parsed.success || parsed.data.outcome === "dismissed") return { outcome: "dismissed" };
  if (parsed.data.answers.length !== questions.length) return { outcome: "dismissed" };
  return { outcome: "answered", answers: parsed.data.answers };
}

export function readPlan(result: unknown): PlanOutcome {
  const parsed = PlanResult.safeParse(result);
  if (!parsed.success) return { outcome: "dismissed" };
  return parsed.data.outcome === "approve"
    ? { outcome: "approve", mode: parsed.data.mode }
    : parsed.data.outcome === "revise"
      ? { outcome: "revise", feedback: parsed.data.feedback }
      : { outcome: "dismissed" };
}

/** The engine's Interaction for a session whose cards go through a desk (the link). */
export function deskInteraction(desk: CardDesk): Interaction {
  return {
    async permission(request, signal) {
      const answer = await desk.ask("permission", request.callId, permissionParams(request), signal);
      if (answer.kind !== "answered") return { outcome: "deny", unanswered: true, ...(answer.kind === "timeout" ? { feedback: "nobody answered in time" } : {}) };
      return readDecision(answer.result);
    },
    async question(request, signal) {
      const params = questionParams(request.sessionId, request.callId, request.questions, request.why, false);
      const answer = await desk.ask("question", request.callId, params, signal);
      if (answer.kind === "unsupported") return { outcome: "nobody" };
      if (answer.kind !== "answered") return { outcome: "dismissed" };
      return readQuestion(answer.result, request.questions);
    },
    async plan(request, signal) {
      const params = { sessionId: request.sessionId, toolCallId: request.callId, path: request.path, text: request.text };
      const answer = await desk.ask("plan", request.callId, params, signal);
      if (answer.kind === "unsupported") return { outcome: "nobody" };
      if (answer.kind !== "answered") return { outcome: "dismissed" };
      return readPlan(answer.result);
    },
  };
}
