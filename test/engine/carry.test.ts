import { describe, expect, test } from "bun:test";
import { toChatMessages } from "../../src/engine/history.ts";
import type { StoredMessage } from "../../src/engine/records.ts";
import { requestBody } from "../../src/model/request.ts";

// What a provider needs back of a reply (thinking with its signature, a reasoning item) rides the
// running turn's history, and that of a tool loop no text reply closed; chat completions is never sent it.
const thinking = { api: "messages" as const, item: { type: "thinking", thinking: "Look first.", signature: "sig" } };
const history = (lastTurn: string): StoredMessage[] => [
  { seq: 1, turnId: "t1", role: "user", body: { text: "first" } },
  { seq: 2, turnId: "t1", role: "assistant", body: { text: "", reasoning: "Look first.", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }], carry: [thinking] } },
  { seq: 3, turnId: "t1", role: "tool", body: { callId: "c1", name: "read", output: "x", isError: false } },
  { seq: 4, turnId: lastTurn, role: "user", body: { text: "next" } },
];
const options = { summary: null, summarySeq: null, vision: false };

describe("carried items", () => {
  test("an assistant message of the running turn carries them", () => {
    const messages = toChatMessages("sys", history("t1"), options);
    const assistant = messages.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" ? assistant.carry : null).toEqual([thinking]);
  });

  test("one of an earlier turn whose tool loop a text reply closed does not", () => {
    const closed: StoredMessage[] = [
      ...history("t2").slice(0, 3),
      { seq: 4, turnId: "t1", role: "assistant", body: { text: "It says x.", reasoning: "", toolCalls: [] } },
      { seq: 5, turnId: "t2", role: "user", body: { text: "next" } },
    ];
    const assistant = toChatMessages("sys", closed, options).find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" ? assistant.carry : "none").toBeUndefined();
  });

  test("one of an earlier turn cut inside its tool loop (cancel, an error) does: Messages wants the last tool_use's thinking", () => {
    const assistant = toChatMessages("sys", history("t2"), options).find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" ? assistant.carry : null).toEqual([thinking]);
  });

  test("a chat-completions body never holds them", () => {
    const body = requestBody({ model: "m", messages: toChatMessages("sys", history("t1"), options), effort: "off" });
    expect(JSON.stringify(body)).not.toContain("carry");
    expect(JSON.stringify(body)).not.toContain("sig");
  });
});
