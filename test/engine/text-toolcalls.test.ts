import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listMessages } from "../../src/store/messages.ts";
import { type EngineHarness, engineHarness, isStep, ofType, step } from "../support/engine.ts";
import { type ScriptedModel, contentText, startModel } from "../support/model.ts";

let h: EngineHarness;
let other: ScriptedModel | null = null;
afterEach(async () => {
  await h.close();
  await other?.close();
  other = null;
});

const call = (name: string, args: object) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe("tool calls a model writes as text", () => {
  test("a <tool_call> in the text runs the tool, the next step gets its result, the text around it is kept and the tag never shown", async () => {
    h = await engineHarness();
    const written = `Writing it now.\n${call("write", { path: "hello.txt", content: "hi there\n" })}`;
    // Split in small pieces, so the tag spans chunks the way a server streams it.
    h.model.push(step({ text: written.match(/[\s\S]{1,7}/g) ?? [], chunkDelayMs: 1 }), step({ text: "Done: hello.txt holds a greeting." }));
    const session = await h.session();
    const answer = await session.prompt({ text: "make hello.txt" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(readFileSync(join(h.project, "hello.txt"), "utf8")).toBe("hi there\n");

    const events = h.events(session);
    const shown = ofType(events, "text").map((e) => e.delta).join("");
    expect(shown).toBe("Writing it now.\nDone: hello.txt holds a greeting.");
    expect(ofType(events, "tool_start").map((e) => e.name)).toEqual(["write"]);
    expect(ofType(events, "tool_end")[0]).toMatchObject({ isError: false });

    const steps = h.model.requests.filter((r) => isStep(r.body));
    expect(steps).toHaveLength(2);
    const second = steps[1]?.body.messages ?? [];
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second[2]).toMatchObject({ content: "Writing it now.\n", tool_calls: [{ type: "function", function: { name: "write" } }] });
    expect(contentText(second[3]?.content)).toContain("hello.txt");

    const assistant = listMessages(h.db, session.id).find((m) => m.role === "assistant");
    expect(JSON.stringify(assistant)).not.toContain("<tool_call>");
  });

  test("a call naming a tool the turn did not offer stays text (a small window is offered no settings)", async () => {
    h = await engineHarness({ models: [{ id: "test-model", context_length: 8192 }] });
    const text = `Let me look.\n${call("settings", { action: "set", mode: "auto" })}`;
    h.model.push(step({ text }));
    const session = await h.session({ mode: "plan" });
    const answer = await session.prompt({ text: "go" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    expect(session.mode).toBe("plan");
    const events = h.events(session);
    expect(ofType(events, "text").map((e) => e.delta).join("")).toBe(text);
    expect(ofType(events, "tool_start")).toHaveLength(0);
    expect(h.model.requests.filter((r) => isStep(r.body))).toHaveLength(1);
  });

  test("a name no tool has stays text", async () => {
    h = await engineHarness();
    const text = `Hm.\n${call("format_disk", {})}`;
    h.model.push(step({ text }));
    const session = await h.session();
    await session.prompt({ text: "go" });
    expect(ofType(h.events(session), "text").map((e) => e.delta).join("")).toBe(text);
    expect(ofType(h.events(session), "tool_start")).toHaveLength(0);
  });
});

describe("an example of a call in the model's prose is never run", () => {
  const example = 'A bash call looks like this:\n```json\n{"name": "bash", "arguments": {"command": "touch PWNED"}}\n```';
  /** Asked in auto mode, where a bash call would run without asking. */
  async function ask(): Promise<{ shown: string; ran: string[] }> {
    const session = await h.session({ mode: "auto" });
    const answer = await session.prompt({ text: "show me what a bash call looks like; don't run anything" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });
    const events = h.events(session);
    return { shown: ofType(events, "text").map((e) => e.delta).join(""), ran: ofType(events, "tool_start").map((e) => e.name) };
  }

  test("a model whose server sent tool calls of its own in the turn: a fenced call ending its answer is shown, not run", async () => {
    h = await engineHarness();
    writeFileSync(join(h.project, "notes.txt"), "notes\n");
    h.model.push(step({ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }), step({ text: example }));
    const { shown, ran } = await ask();
    expect(ran).toEqual(["read"]);
    expect(shown).toBe(example);
    expect(existsSync(join(h.project, "PWNED"))).toBe(false);
    expect(h.model.requests.filter((r) => isStep(r.body))).toHaveLength(2);
  });

  test("a fenced call with words after it is shown, not run, from a server that may not parse calls", async () => {
    h = await engineHarness();
    const text = `${example}\nI did not run it.`;
    h.model.push(step({ text: text.match(/[\s\S]{1,5}/g) ?? [], chunkDelayMs: 1 }));
    const { shown, ran } = await ask();
    expect(ran).toEqual([]);
    expect(shown).toBe(text);
    expect(existsSync(join(h.project, "PWNED"))).toBe(false);
  });

  test("a connection that says text_tool_calls: false: a fenced call ending the first answer is shown, not run", async () => {
    other = await startModel({ replies: [{ text: example }] });
    h = await engineHarness({ config: { model: "native/test-model", connections: { native: { base_url: other.url, text_tool_calls: false } } } });
    const { shown, ran } = await ask();
    expect(ran).toEqual([]);
    expect(shown).toBe(example);
    expect(existsSync(join(h.project, "PWNED"))).toBe(false);
    expect(other.requests).toHaveLength(1);
  });
});

describe("a connection whose models take no tools", () => {
  test("supports_tools: false sends no tools, a system prompt that promises none, and the turn is chat", async () => {
    other = await startModel({ replies: [{ text: `Paste the file and I will look. ${call("read", { path: "a.ts" })}` }] });
    h = await engineHarness({ config: { model: "plain/test-model", connections: { plain: { base_url: other.url, supports_tools: false } } } });
    const session = await h.session();
    const answer = await session.prompt({ text: "what is in a.ts?" });
    expect(answer).toMatchObject({ stopReason: "end_turn" });

    const [first] = await other.waitForRequests(1);
    expect(first?.body.tools).toBeUndefined();
    const system = contentText(first?.body.messages?.[0]?.content);
    expect(system).toContain("used without tools");
    expect(system).not.toContain("using the tools you are given");
    expect(system).not.toContain("plan_submit");
    expect(system).toContain("# Environment");

    // Nothing was offered, so a call written as text is only text.
    const events = h.events(session);
    expect(ofType(events, "tool_start")).toHaveLength(0);
    expect(ofType(events, "text").map((e) => e.delta).join("")).toContain("<tool_call>");
  });
});
