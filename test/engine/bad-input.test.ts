import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listMessages } from "../../src/store/messages.ts";
import { listTurns } from "../../src/store/turns.ts";
import { type EngineHarness, engineHarness, isStep, ofType, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

const lastToolOutput = () => {
  const messages = h.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages ?? [];
  return contentText(messages.findLast((m) => m.role === "tool")?.content);
};

/** After a failure the session answers the next prompt, and every turn in the store is done. */
async function stillUsable(session: Awaited<ReturnType<EngineHarness["session"]>>) {
  h.model.push(step({ text: "still here" }));
  const next = await session.prompt({ text: "are you there?" });
  expect(next).toMatchObject({ stopReason: "end_turn" });
  expect(next.error).toBeUndefined();
  expect(listTurns(h.db, session.id).every((t) => t.state === "done")).toBe(true);
}

describe("the model misbehaves", () => {
  test("the endpoint is down: a clear error, and the session stays usable", async () => {
    const session = await h.session();
    await h.model.close();
    const answer = await session.prompt({ text: "hello" });
    expect(answer.error).toMatch(/did not answer|refused|unreachable|connect/i);
    expect(ofType(h.events(session), "error")[0]?.message).toBe(answer.error as string);
    expect(listTurns(h.db, session.id).every((t) => t.state === "done")).toBe(true);
    expect(listMessages(h.db, session.id).map((m) => m.role)).toEqual(["user"]);
  });

  test("401: a sentence about the key, no retry", async () => {
    h.model.push(step({ fail: { status: 401 } }));
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer.error).toMatch(/401|key|token|auth/i);
    expect(h.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
    await stillUsable(session);
  });

  test("500 before the first token is retried, and the answer is written once", async () => {
    h.model.push(step({ fail: { status: 500 }, failTimes: 1, text: "recovered" }));
    const session = await h.session();
    const answer = await session.prompt({ text: "hello" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(ofType(h.events(session), "notice").length).toBeGreaterThan(0);
    expect(listMessages(h.db, session.id).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("a stream cut mid-reply keeps what was said and ends the turn with an error", async () => {
    h.model.push(step({ text: ["one ", "two ", "three ", "four ", "five ", "six"], fail: "cut" }));
    const session = await h.session();
    const answer = await session.prompt({ text: "count" });
    expect(answer.error).toBeDefined();
    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(assistant?.body).toMatchObject({ partial: true });
    await stillUsable(session);
  });

  test("500 mid-stream: what was said is kept once, the turn ends with the server's words, the session goes on", async () => {
    h.model.push(step({ text: ["one ", "two ", "three ", "four ", "five ", "six"], fail: "error" }));
    const session = await h.session();
    const answer = await session.prompt({ text: "count" });
    expect(answer.error).toContain("internal server error");
    expect(h.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
    const assistants = listMessages(h.db, session.id).filter((m) => m.role === "assistant");
    expect(assistants).toHaveLength(1);
    expect(assistants[0]?.body).toMatchObject({ partial: true, text: expect.stringMatching(/^one two/) });
    await stillUsable(session);
    expect(listMessages(h.db, session.id).filter((m) => m.role === "assistant")).toHaveLength(2);
  });

  test("malformed SSE JSON ends the turn with an error", async () => {
    h.model.push(step({ text: ["a", "b", "c", "d"], fail: "malformed" }));
    const session = await h.session();
    const answer = await session.prompt({ text: "go" });
    expect(answer.error).toMatch(/malformed|JSON|invalid/i);
    await stillUsable(session);
  });

  test("a tool call with invalid JSON arguments is an error result the model sees", async () => {
    h.model.push(step({ toolCalls: [{ name: "read", arguments: '{"path": "a.txt"' }] }), step({ text: "sorry" }));
    const session = await h.session();
    await session.prompt({ text: "read" });
    expect(lastToolOutput()).toMatch(/not valid JSON/);
    await stillUsable(session);
  });

  test("an unknown tool name is an error result the model sees", async () => {
    h.model.push(step({ toolCalls: [{ name: "teleport", arguments: {} }] }), step({ text: "sorry" }));
    const session = await h.session();
    await session.prompt({ text: "go" });
    expect(lastToolOutput()).toMatch(/no tool named "teleport"/);
  });

  test("input that fails the tool's schema tells the model how to fix it", async () => {
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { file: "a.txt" } }] }), step({ text: "sorry" }));
    const session = await h.session();
    await session.prompt({ text: "go" });
    expect(lastToolOutput()).toMatch(/Invalid input for read: path/);
  });
});

describe("tools misused", () => {
  test("a bash command that never ends stops at its timeout", async () => {
    h.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "sleep 100", timeout: 500 } }] }), step({ text: "it hung" }));
    const session = await h.session({ mode: "auto" });
    // Not stopped at its 500 ms, the 100 s sleep would time the test out.
    const answer = await session.prompt({ text: "hang" });
    expect(answer.stopReason).toBe("end_turn");
    expect(lastToolOutput()).toMatch(/timed out/);
  }, 30_000);

  test("an edit whose old text is not unique is refused and the file is untouched", async () => {
    writeFileSync(join(h.project, "a.txt"), "x = 1\nx = 1\n");
    h.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "x = 1", new_string: "x = 2" } }] }),
      step({ text: "hm" }),
    );
    const session = await h.session();
    await session.prompt({ text: "edit" });
    expect(lastToolOutput()).toMatch(/2 (times|matches|places)|more than once|not unique/i);
    expect(readFileSync(join(h.project, "a.txt"), "utf8")).toBe("x = 1\nx = 1\n");
  });

  test("an unknown model ref is a sentence naming close ones", async () => {
    const session = await h.session();
    const answer = await session.prompt({ text: "hi", model: "tset/test-model" });
    expect(answer.error).toMatch(/no model "tset\/test-model"/);
  });
});
