import type { Card } from "./cards.ts";
import { PermissionCard } from "./cards/permission.ts";
import { PlanCard } from "./cards/plan.ts";
import { QuestionCard } from "./cards/question.ts";
import type { Component } from "./kit.ts";
import type { Theme } from "./theme.ts";

/**
 * The cards waiting on the person, oldest first, and the view of each (made once, kept while it
 * waits, so what was typed into it survives a redraw). The screen shows the first.
 */
export class CardViews {
  private readonly cards: Card[] = [];
  private readonly views = new Map<string, Component>();

  constructor(
    private readonly theme: Theme,
    /** The rows a card may take on the screen. */
    private readonly room: () => number = () => Number.POSITIVE_INFINITY,
  ) {}

  add(card: Card): void {
    this.cards.push(card);
  }

  drop(callId: string): void {
    const at = this.cards.findIndex((c) => c.callId === callId);
    if (at >= 0) this.cards.splice(at, 1);
    this.views.delete(callId);
  }

  /** The oldest card's view, or null when none waits. */
  first(): Component | null {
    const card = this.cards[0];
    if (!card) return null;
    const known = this.views.get(card.callId);
    if (known) return known;
    const view = viewOf(card, this.theme, this.room);
    this.views.set(card.callId, view);
    return view;
  }
}

function viewOf(card: Card, theme: Theme, room: () => number): Component {
  if (card.kind === "permission") return new PermissionCard(card.request, theme, (decision) => card.answer(decision), room);
  if (card.kind === "question") return new QuestionCard(card.questions, card.why, theme, (outcome) => card.answer(outcome));
  return new PlanCard(card.path, card.text, theme, (outcome) => card.answer(outcome));
}
