import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { listTurns } from "../../src/store/turns.ts";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";
import { rpcError } from "../support/rpc.ts";

let a: StdioAgent;
beforeEach(async () => {
  a = await startStdioAgent();
});
afterEach(() => a.close());

const newSession = async (extra: Record<string, unknown> = {}) => {
  await a.agent.request("initialize", initializeParams);
  return a.agent.request("session/new", { cwd: a.project, mcpServers: [], ...extra });
};
const updatesOf = (kind: string) => a.updates.filter((u) => u.update.sessionUpdate === kind);

describe("initialize", () => {
  test("answers exactly as the spec shows, with limits and connection null on stdio", async () => {
    const result = await a.agent.request("initialize", { protocolVersion: 7, clientCapabilities: {} });
    expect(result as unknown).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {} },
      },
      authMethods: [],
      agentInfo: { name: "LLeMbas CLI", version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      _meta: { lembas: { protocol: 2, harness_spec: "1.0.0", limits: null, connection: null, capabilities: expect.any(Array) } },
    });
  });
});

describe("session/new", () => {
  test("answers with modes and _meta.lembas, then available_commands_update after the answer", async () => {
    const result = await newSession({ _meta: { mode: "manual", effort: "high" } });
    expect(result.sessionId).toStartWith("ses_");
    expect(result.modes?.currentModeId).toBe("manual");
    expect(result.modes?.availableModes.map((m) => m.id)).toEqual(["plan", "manual", "edit", "auto"]);
    expect(result._meta).toEqual({ lembas: { model: "test/test-model", mode: "manual", effort: "high" } });
    const line = await a.waitForLine((l) => l.includes("available_commands_update"));
    const answerIndex = a.stdoutLines.findIndex((l) => l.includes(result.sessionId) && l.includes('"modes"'));
    expect(answerIndex).toBeGreaterThanOrEqual(0);
    expect(a.stdoutLines.indexOf(line)).toBeGreaterThan(answerIndex);
  });

  test("a relative or missing cwd is -32602 with the reason", async () => {
    await a.agent.request("initialize", initializeParams);
    const relative = await rpcError(a.agent.request("session/new", { cwd: "project", mcpServers: [] }));
    expect(relative).toMatchObject({ code: -32602 });
    expect(relative.message).toContain("absolute path");
    const missing = await rpcError(a.agent.request("session/new", { cwd: join(a.project, "nope"), mcpServers: [] }));
    expect(missing.message).toContain("is not an existing directory");
    const badMode = await rpcError(a.agent.request("session/new", { cwd: a.project, mcpServers: [], _meta: { mode: "fast" } }));
    expect(badMode).toMatchObject({ code: -32602 });
  });
});

describe("session/prompt", () => {
  test("a turn that writes a file streams tool_call and a diff, and answers with the turn id", async () => {
    a.model.push(
      step({ reasoning: "thinking", toolCalls: [{ name: "write", arguments: { path: "hello.md", content: "# Hi\n" } }] }),
      step({ text: "Wrote hello.md." }),
    );
    const { sessionId } = await newSession();
    const result = await a.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write hello.md" }],
      _meta: { lembas: { turnId: "turn-a" } },
    });
    // With the turn's tokens (the SDK schema's unstable usage), as the scripted model reported them.
    const tokens = { inputTokens: expect.any(Number), outputTokens: expect.any(Number), totalTokens: expect.any(Number) };
    expect(result as unknown).toEqual({ stopReason: "end_turn", _meta: { lembas: { turnId: "turn-a" } }, usage: tokens });
    expect(readFileSync(join(a.project, "hello.md"), "utf8")).toBe("# Hi\n");
    // Announced as the model starts it, then what it does once it runs.
    const call = updatesOf("tool_call")[0]?.update as Record<string, unknown>;
    expect(call).toMatchObject({ title: "write", kind: "edit", status: "pending" });
    const done = updatesOf("tool_call_update").map((u) => u.update as Record<string, unknown>);
    expect(done.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(done[0]).toMatchObject({ toolCallId: call.toolCallId, title: "Write hello.md", rawInput: { path: "hello.md", content: "# Hi\n" } });
    expect(done[0]?.locations).toEqual([{ path: join(a.project, "hello.md") }]);
    expect(done[1]?.content).toEqual([{ type: "diff", path: join(a.project, "hello.md"), oldText: null, newText: "# Hi\n" }]);
    expect(updatesOf("agent_thought_chunk").length).toBeGreaterThan(0);
    const text = updatesOf("agent_message_chunk").map((u) => (u.update as { content: { text: string } }).content.text).join("");
    expect(text).toBe("Wrote hello.md.");
  });

  test("text, resource_link and embedded text resources become the prompt", async () => {
    a.model.push(step({ text: "ok" }));
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "resource_link", uri: "file:///tmp/x.ts", name: "x.ts" },
        { type: "resource", resource: { uri: "file:///home/me/notes.md", mimeType: "text/markdown", text: "alpha\nbeta\n" } },
      ],
    });
    const user = a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.find((m) => m.role === "user");
    const text = String(user?.content);
    // Joined as the editor wrote them (editor-prompt.test.ts): what names no project file stands in place as today.
    expect(text).toStartWith("look at these (see file:///tmp/x.ts) notes.md\n\n<file name=\"notes.md\"");
    expect(text).toContain("1\talpha\n2\tbeta");
  });

  test("a denied command is not run and the tool call fails", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    const { sessionId } = await newSession();
    const result = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make it" }] });
    expect(result.stopReason).toBe("end_turn");
    expect(existsSync(join(a.project, "made.txt"))).toBe(false);
    const asked = a.permissionRequests[0];
    expect(asked?.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["once", "allow_once"],
      ["session", "allow_always"],
      ["deny", "reject_once"],
    ]);
    expect(asked?.toolCall).toMatchObject({ kind: "execute", status: "pending", rawInput: { command: "touch made.txt" } });
    expect(asked?._meta).toMatchObject({ lembas: { reason: "edit mode asks before running commands", always: "touch commands, for this session" } });
    const failed = updatesOf("tool_call_update").map((u) => u.update as Record<string, unknown>);
    expect(failed.at(-1)).toMatchObject({ toolCallId: asked?.toolCall.toolCallId, status: "failed" });
  });

  test("a cancelled permission outcome is a denial", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "cancelled" } });
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make it" }] });
    expect(existsSync(join(a.project, "made.txt"))).toBe(false);
  });

  test("session/cancel: the prompt answers cancelled, never an error, with the updates before it", async () => {
    a.model.push(step({ text: ["one ", "two ", "three ", "four"], chunkDelayMs: 300 }));
    const { sessionId } = await newSession();
    const prompt = a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "count" }] });
    await a.waitForLine((l) => l.includes("agent_message_chunk"));
    await a.agent.notify("session/cancel", { sessionId });
    const result = await prompt;
    expect(result.stopReason).toBe("cancelled");
    const answer = a.stdoutLines.findIndex((l) => l.includes('"stopReason":"cancelled"'));
    const lastChunk = a.stdoutLines.findLastIndex((l) => l.includes("agent_message_chunk"));
    expect(lastChunk).toBeLessThan(answer);
  });

  test("a prompt that arrives while the session works waits its turn", async () => {
    a.model.push(step({ text: ["a", "b"], chunkDelayMs: 150 }), step({ text: "second" }));
    const { sessionId } = await newSession();
    const [first, second] = await Promise.all([
      a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] }),
      a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] }),
    ]);
    expect([first.stopReason, second.stopReason]).toEqual(["end_turn", "end_turn"]);
    // The second turn's words came after all of the first's.
    const text = updatesOf("agent_message_chunk").map((u) => (u.update as { content: { text: string } }).content.text).join("");
    expect(text).toBe("absecond");
  });

  test("a model failure is a JSON-RPC error with a sentence, and the session goes on", async () => {
    a.model.push(step({ fail: { status: 401 } }));
    const { sessionId } = await newSession();
    const error = await rpcError(a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/401|refused|key/i);
    a.model.push(step({ text: "fine" }));
    const next = await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(next.stopReason).toBe("end_turn");
  });
});

describe("session/set_mode", () => {
  test("changes the mode and says so with current_mode_update; an unknown mode is -32602", async () => {
    const { sessionId } = await newSession();
    expect(await a.agent.request("session/set_mode", { sessionId, modeId: "plan" })).toEqual({});
    await a.waitForLine((l) => l.includes("current_mode_update"));
    expect(updatesOf("current_mode_update")[0]?.update).toEqual({ sessionUpdate: "current_mode_update", currentModeId: "plan" });
    const error = await rpcError(a.agent.request("session/set_mode", { sessionId, modeId: "turbo" }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("modeId must be one of");
  });
});

describe("bad input never kills the agent", () => {
  const expectAlive = async () => {
    const result = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    expect(result.sessionId).toStartWith("ses_");
  };

  test("a line that is not JSON gets -32700 and the agent goes on", async () => {
    await a.agent.request("initialize", initializeParams);
    a.sendRaw("this is not json {");
    const line = await a.waitForLine((l) => l.includes("-32700"));
    expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    await expectAlive();
  });

  test("an invalid request gets -32600", async () => {
    await a.agent.request("initialize", initializeParams);
    a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 41, method: 12 }));
    a.sendRaw(JSON.stringify({ jsonrpc: "1.0", id: 42, method: "initialize" }));
    const first = JSON.parse(await a.waitForLine((l) => l.includes('"id":41')));
    const second = JSON.parse(await a.waitForLine((l) => l.includes('"id":42')));
    expect(first.error.code).toBe(-32600);
    expect(second.error.code).toBe(-32600);
    await expectAlive();
  });

  test("an unknown method gets -32601, and so do the link's _lembas methods on stdio", async () => {
    await a.agent.request("initialize", initializeParams);
    const error = await rpcError(a.agent.request("lembas/teleport", {}));
    expect(error.code).toBe(-32601);
    const directories = await rpcError(a.agent.request("_lembas/directories", {}));
    expect(directories.code).toBe(-32601);
    await expectAlive();
  });

  test("bad params get -32602 with a sentence", async () => {
    await a.agent.request("initialize", initializeParams);
    a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 43, method: "session/new", params: { cwd: 12 } }));
    const line = JSON.parse(await a.waitForLine((l) => l.includes('"id":43')));
    expect(line.error.code).toBe(-32602);
    expect(line.error.message).toMatch(/^Invalid params: .*cwd/);
    const unknownSession = await rpcError(a.agent.request("session/prompt", { sessionId: "ses_nope", prompt: [] }));
    expect(unknownSession.code).toBe(-32602);
    expect(unknownSession.message).toContain("there is no session ses_nope");
    await expectAlive();
  });

  test("an empty prompt (no blocks, or blank text only) is refused with a sentence, and the model is not called", async () => {
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = (await a.agent.request("session/new", { cwd: a.project, mcpServers: [] })) as { sessionId: string };
    for (const prompt of [[], [{ type: "text", text: "  \n " }]]) {
      const error = await rpcError(a.agent.request("session/prompt", { sessionId, prompt }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("the prompt is empty");
    }
    expect(a.model.requests.filter((r) => isStep(r.body)).length).toBe(0);
    await expectAlive();
  });

  test("a request before initialize is refused", async () => {
    const error = await rpcError(a.agent.request("session/new", { cwd: a.project, mcpServers: [] }));
    expect(error.code).toBe(-32600);
    expect(error.message).toContain("initialized");
    await a.agent.request("initialize", initializeParams);
    await expectAlive();
  });

  test("a single line of 30 MB is answered and the agent goes on", async () => {
    await a.agent.request("initialize", initializeParams);
    const big = "x".repeat(30 * 1024 * 1024);
    a.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 44, method: "lembas/big", params: { big } }));
    const line = JSON.parse(await a.waitForLine((l) => l.includes('"id":44'), 20_000));
    expect(line.error.code).toBe(-32601);
    await expectAlive();
  });

  test("nothing but JSON-RPC ever reaches stdout", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "echo to-stdout; echo to-stderr >&2" } }] }), step({ text: "ok" }));
    const { sessionId } = await newSession();
    await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    a.sendRaw("garbage");
    await a.waitForLine((l) => l.includes("-32700"));
    for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  });
});

test("stdin closed mid-turn: the turn is cancelled, the store is consistent, exit 0", async () => {
  a.model.push(step({ text: ["slow ", "words ", "here ", "and ", "more"], chunkDelayMs: 400 }));
  const { sessionId } = await newSession();
  void a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] }).catch(() => {});
  await a.waitForLine((l) => l.includes("agent_message_chunk"));
  a.proc.stdin.end();
  const code = await a.proc.exited;
  expect(code).toBe(0);
  const db = openDb(join(a.box.stateDir, "lembas.db"));
  const turns = listTurns(db, sessionId);
  expect(turns).toHaveLength(1);
  expect(turns[0]).toMatchObject({ state: "done", answer: { stopReason: "cancelled" } });
  db.close();
});
