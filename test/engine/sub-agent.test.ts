import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listMessages } from "../../src/store/messages.ts";
import { listSessions } from "../../src/store/sessions.ts";
import { type EngineHarness, engineHarness, helperStep, isHelper, ofType, ownStep } from "../support/engine.ts";
import { type ChatRequest, contentText, lastUserText } from "../support/model.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
  mkdirSync(join(h.project, "src"));
  writeFileSync(join(h.project, "src/a.ts"), "export const one = 1;\nexport const needle = 2;\n");
});
afterEach(() => h.close());

const toolNames = (body: ChatRequest): string[] =>
  (body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
const task = (prompt: string) => ({ name: "task", arguments: { description: "find the needle", prompt } });

describe("the task tool", () => {
  test("a helper with only the read tools answers; its calls are told nested; the parent gets the answer", async () => {
    h.model.push(
      ownStep({ toolCalls: [{ id: "call_task", ...task("Where is needle defined? Give path:line.") }] }),
      helperStep({ toolCalls: [{ id: "h1", name: "grep", arguments: { pattern: "needle" } }] }),
      helperStep({ toolCalls: [{ id: "h2", name: "read", arguments: { path: "src/a.ts" } }], usage: { prompt_tokens: 300, completion_tokens: 7 } }),
      helperStep({ text: "needle is defined at src/a.ts:2.", reasoning: "found it" }),
      ownStep({ text: "It is in src/a.ts." }),
    );
    const session = await h.session();
    const answer = await session.prompt({ text: "where is needle?" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });

    const helper = h.model.requests.filter((r) => isHelper(r.body));
    expect(helper).toHaveLength(3);
    for (const r of helper) expect(toolNames(r.body)).toEqual(["read", "grep", "glob", "list"]);
    const first = helper[0]?.body.messages ?? [];
    expect(first.map((m) => m.role)).toEqual(["system", "user"]);
    expect(contentText(first[1]?.content)).toBe("Where is needle defined? Give path:line.");
    // Its own context: nothing of the parent's conversation, and the same model and effort.
    expect(JSON.stringify(first)).not.toContain("where is needle?");
    expect(helper[0]?.body.reasoning_effort).toBe("medium");
    expect(contentText(helper[2]?.body.messages?.at(-1)?.content)).toContain("export const needle = 2;");

    const own = h.model.requests.filter((r) => !isHelper(r.body) && (r.body.tools?.length ?? 0) > 0);
    expect(toolNames(own[0]?.body ?? {})).toContain("task");
    const result = own[1]?.body.messages?.at(-1);
    expect(result).toMatchObject({ role: "tool", tool_call_id: "call_task" });
    expect(contentText(result?.content)).toBe("needle is defined at src/a.ts:2.");

    const events = h.events(session);
    expect(ofType(events, "sub_tool").map((e) => [e.parentCallId, e.callId, e.name, e.status])).toEqual([
      ["call_task", "h1", "grep", "in_progress"],
      ["call_task", "h1", "grep", "completed"],
      ["call_task", "h2", "read", "in_progress"],
      ["call_task", "h2", "read", "completed"],
    ]);
    expect(ofType(events, "sub_tool")[2]?.title).toBe("Read src/a.ts");
    // The helper's text and its calls stay off the session's bus: only the task call is the session's.
    expect(ofType(events, "text").map((e) => e.delta).join("")).toBe("It is in src/a.ts.");
    expect(ofType(events, "reasoning")).toHaveLength(0);
    expect(ofType(events, "tool_start").map((e) => e.name)).toEqual(["task"]);
    expect(ofType(events, "tool_end")[0]).toMatchObject({ name: "task", isError: false, meta: { steps: 3, toolCalls: 2 } });
    // What the helper's model calls cost counts as the session's.
    expect(ofType(events, "usage").some((e) => e.promptTokens === 300 && e.completionTokens === 7 && e.contextLimit === undefined)).toBe(true);
    // The helper is no session: nothing of it is stored.
    expect(listSessions(h.db).map((s) => s.id)).toEqual([session.id]);
    expect(listMessages(h.db, session.id).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  test("task runs in plan mode, and a helper's call to a tool it has not got is a result it sees", async () => {
    h.model.push(
      ownStep({ toolCalls: [{ id: "call_task", ...task("Change a.ts") }] }),
      helperStep({ toolCalls: [{ id: "h1", name: "write", arguments: { path: "src/a.ts", content: "gone" } }] }),
      helperStep({ text: "I cannot change files." }),
      ownStep({ text: "ok" }),
    );
    const session = await h.session({ mode: "plan" });
    await session.prompt({ text: "go" });
    const events = h.events(session);
    expect(ofType(events, "tool_denied")).toHaveLength(0);
    expect(ofType(events, "tool_end")[0]).toMatchObject({ name: "task", isError: false, output: "I cannot change files." });
    const helper = h.model.requests.filter((r) => isHelper(r.body));
    expect(contentText(helper[1]?.body.messages?.at(-1)?.content)).toContain('There is no tool named "write"');
    expect(Bun.file(join(h.project, "src/a.ts")).size).toBeGreaterThan(10);
  });

  test("after 12 steps with tools the helper is asked for its answer without tools", async () => {
    h.model.push(ownStep({ toolCalls: [{ id: "call_task", ...task("Look everywhere") }] }));
    for (let i = 0; i < 12; i++) h.model.push(helperStep({ toolCalls: [{ id: `h${i}`, name: "glob", arguments: { pattern: `**/*${i}` } }] }));
    h.model.push(helperStep({ text: "Nothing found in 12 searches." }), ownStep({ text: "ok" }));
    const session = await h.session();
    await session.prompt({ text: "go" });
    const helper = h.model.requests.filter((r) => isHelper(r.body));
    expect(helper).toHaveLength(13);
    expect(helper.slice(0, 12).every((r) => toolNames(r.body).length === 4)).toBe(true);
    expect(toolNames(helper[12]?.body ?? {})).toEqual([]);
    expect(lastUserText(helper[12]?.body ?? {})).toContain("You have used all your steps");
    const end = ofType(h.events(session), "tool_end")[0];
    expect(end).toMatchObject({ name: "task", isError: false, output: "Nothing found in 12 searches.", meta: { steps: 13, toolCalls: 12 } });
    expect(ofType(h.events(session), "sub_tool")).toHaveLength(24);
  });

  test("cancelling the turn stops the helper's model call", async () => {
    h.model.push(ownStep({ toolCalls: [{ id: "call_task", ...task("Wait") }] }), helperStep({ fail: "hang" }));
    const session = await h.session();
    const answer = session.prompt({ text: "go" });
    while (!h.model.requests.some((r) => isHelper(r.body))) await Bun.sleep(5);
    session.cancel();
    // The helper's call hangs for good: a cancel that did not reach it would time the test out.
    expect(await answer).toMatchObject({ stopReason: "cancelled" });
    expect(ofType(h.events(session), "tool_end")[0]).toMatchObject({ name: "task", isError: true, output: "Cancelled: the turn was stopped." });
    // Nothing was left queued for a helper that goes on.
    await Bun.sleep(100);
    expect(h.model.requests.filter((r) => isHelper(r.body))).toHaveLength(1);
  });
});
