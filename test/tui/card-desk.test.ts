import { describe, expect, test } from "bun:test";
import { type Card, CardDesk } from "../../src/tui/cards.ts";

const question = { header: "Name", question: "What name?", multiple: false, options: [{ label: "alpha" }] };

describe("the card desk", () => {
  test("several cards wait at once, oldest first; settling one leaves the other, and the turn letting go takes a card down", async () => {
    const desk = new CardDesk();
    const changes: string[] = [];
    desk.listen((c) => changes.push(c.type === "open" ? `open ${c.card.callId}` : `settled ${c.callId}`));
    const first = new AbortController();
    const second = new AbortController();
    const asked = desk.interaction.question({ sessionId: "s", callId: "call_1", questions: [question] }, first.signal);
    const planned = desk.interaction.plan({ sessionId: "s", callId: "call_2", path: ".agent/plans/p.md", text: "# P" }, second.signal);
    expect(desk.waiting().map((c) => c.callId)).toEqual(["call_1", "call_2"]);

    const card = desk.waiting()[0] as Extract<Card, { kind: "question" }>;
    card.answer({ outcome: "answered", answers: [{ kind: "options", labels: ["alpha"] }] });
    expect(await asked).toEqual({ outcome: "answered", answers: [{ kind: "options", labels: ["alpha"] }] });
    expect(desk.waiting().map((c) => c.callId)).toEqual(["call_2"]);

    second.abort();
    expect(await planned).toEqual({ outcome: "dismissed" });
    expect(desk.waiting()).toEqual([]);
    expect(changes).toEqual(["open call_1", "open call_2", "settled call_1", "settled call_2"]);
  });
});
