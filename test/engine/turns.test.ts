import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listMessages } from "../../src/store/messages.ts";
import { getTurn } from "../../src/store/turns.ts";
import { type EngineHarness, engineHarness, isStep, isTitle, ofType, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

describe("turns", () => {
  test("multi-step tool use end to end: write, read back, answer", async () => {
    h.model.push(
      step({ toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi there\n" } }] }),
      step({ toolCalls: [{ name: "read", arguments: { path: "hello.txt" } }] }),
      step({ text: "I wrote hello.txt.", usage: { prompt_tokens: 120, completion_tokens: 8 } }),
    );
    const session = await h.session();
    const answer = await session.prompt({ text: "make hello.txt" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(readFileSync(join(h.project, "hello.txt"), "utf8")).toBe("hi there\n");

    const events = h.events(session);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("task");
    expect(ofType(events, "prompt")[0]).toMatchObject({ text: "make hello.txt", turnId: answer.turnId });
    expect(ofType(events, "step").map((e) => e.step)).toEqual([1, 2, 3]);
    expect(ofType(events, "tool_start").map((e) => e.name)).toEqual(["write", "read"]);
    const ends = ofType(events, "tool_end");
    expect(ends.every((e) => !e.isError)).toBe(true);
    expect(ends[0]?.diffs?.[0]).toMatchObject({ oldText: null, newText: "hi there\n" });
    expect(ends[1]?.output).toContain("hi there");
    expect(ofType(events, "text").map((e) => e.delta).join("")).toBe("I wrote hello.txt.");
    expect(ofType(events, "usage").at(-1)).toMatchObject({ promptTokens: 120, completionTokens: 8 });
    expect(ofType(events, "task").map((e) => e.state)).toEqual(["start", "end"]);
    expect(ofType(events, "done")[0]).toMatchObject({ turnId: answer.turnId, stopReason: "end_turn" });

    // The second step's request carries the first step's call and its result.
    const steps = h.model.requests.filter((r) => isStep(r.body));
    expect(steps).toHaveLength(3);
    const second = steps[1]?.body.messages ?? [];
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(contentText(second[3]?.content)).toContain("hello.txt");
    expect(steps[0]?.body.reasoning_effort).toBe("medium");

    // The store has the whole conversation and the turn's answer.
    const roles = listMessages(h.db, session.id).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(getTurn(h.db, session.id, answer.turnId)).toMatchObject({ state: "done", answer: { stopReason: "end_turn" } });
  });

  test("after the first turn a short model call names the session", async () => {
    h.model.push(step({ text: "done" }), { match: isTitle, text: "Greeting the world" });
    const session = await h.session();
    await session.prompt({ text: "say hello to the world" });
    await session.idle();
    expect(session.title).toBe("Greeting the world");
    expect(ofType(h.events(session), "title").map((e) => e.title)).toEqual(["say hello to the world", "Greeting the world"]);
  });

  test("a one-shot's session (lembas run) sends no naming call: its process ends with the turn and would abort it", async () => {
    h.model.push(step({ text: "done" }), { match: isTitle, text: "Greeting the world" });
    const session = await h.engine.create({ cwd: h.project, root: h.project, mode: "edit", origin: "run" });
    await session.prompt({ text: "say hello to the world" });
    await session.idle();
    expect(h.model.requests.filter((r) => isTitle(r.body))).toEqual([]);
    expect(session.title).toBe("say hello to the world");
  });

  test("a prompt that arrives while the session works waits its turn", async () => {
    h.model.push(step({ text: ["one", " two"], chunkDelayMs: 100 }), step({ text: "second" }));
    const session = await h.session();
    const first = session.prompt({ text: "first" });
    const second = session.prompt({ text: "second" });
    while (ofType(h.events(session), "task").length === 0) await Bun.sleep(5);
    expect(session.status()).toMatchObject({ busy: true, queued: [expect.stringMatching(/^turn_/)] });
    const [a, b] = await Promise.all([first, second]);
    expect([a.stopReason, b.stopReason]).toEqual(["end_turn", "end_turn"]);
    const tasks = ofType(h.events(session), "task").map((e) => `${e.state}:${e.turnId}`);
    expect(tasks).toEqual([`start:${a.turnId}`, `end:${a.turnId}`, `start:${b.turnId}`, `end:${b.turnId}`]);
  });

  test("a prompt with a known turn id does not run again and gets the original's answer", async () => {
    h.model.push(step({ text: "only once" }));
    const session = await h.session();
    const first = session.prompt({ text: "go", turnId: "t-1" });
    const again = session.prompt({ text: "go", turnId: "t-1" });
    expect(await again).toEqual(await first);
    const later = await session.prompt({ text: "go", turnId: "t-1" });
    expect(later).toMatchObject({ turnId: "t-1", stopReason: "end_turn" });
    expect(h.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
  });

  test("the step limit stops a turn with max_turn_requests", async () => {
    await h.close();
    h = await engineHarness({ maxSteps: 2 });
    for (let i = 0; i < 3; i++) h.model.push(step({ toolCalls: [{ name: "list", arguments: {} }] }));
    const session = await h.session();
    const answer = await session.prompt({ text: "loop" });
    expect(answer.stopReason).toBe("max_turn_requests");
  });

  test("a reply cut at its token limit answers max_tokens", async () => {
    h.model.push(step({ text: "and then", finishReason: "length" }));
    const session = await h.session();
    expect((await session.prompt({ text: "long" })).stopReason).toBe("max_tokens");
  });

  test("AGENTS.md of the project and of the config dir are in the system prompt", async () => {
    writeFileSync(join(h.project, "AGENTS.md"), "Use tabs in this project.");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(h.box.configDir, { recursive: true });
    writeFileSync(join(h.box.configDir, "AGENTS.md"), "Answer in English.");
    h.model.push(step({ text: "ok" }));
    const session = await h.session();
    await session.prompt({ text: "hi" });
    const system = contentText(h.model.requests.find((r) => isStep(r.body))?.body.messages?.[0]?.content);
    expect(system).toContain("Use tabs in this project.");
    expect(system).toContain("Answer in English.");
    expect(system).toContain(h.project);
    expect(existsSync(join(h.project, ".git"))).toBe(false);
  });
});
