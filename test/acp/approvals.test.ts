import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeParams, type StdioAgent, startStdioAgent } from "../support/acp.ts";
import { isStep, step } from "../support/engine.ts";

let a: StdioAgent;
beforeEach(async () => {
  a = await startStdioAgent();
});
afterEach(() => a.close());

async function promptIn(mode: string, text = "go") {
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [], _meta: { mode } });
  return a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

/** The title the client shows for a call: the last one its tool_call or tool_call_updates gave. */
const titleOf = (callId: string | undefined) =>
  a.updates
    .map((u) => u.update as Record<string, unknown>)
    .filter((u) => u.toolCallId === callId && typeof u.title === "string")
    .at(-1)?.title;

describe("an approval card shows what will run", () => {
  test("a command's card shows the exact command and its directory first, the model's description only after", async () => {
    const command = "echo secret > out.txt && cat out.txt";
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command, description: "write out.txt" } }] }), step({ text: "ok" }));
    await promptIn("edit");
    const card = a.permissionRequests[0]?.toolCall;
    expect(card?.title).toBe(`Run ${command}`);
    expect(card?.content).toEqual([
      { type: "content", content: { type: "text", text: `\`\`\`sh\n${command}\n\`\`\`\nin ${a.project}\nThe model describes it as: write out.txt` } },
    ]);
    expect(a.permissionRequests[0]?._meta).toEqual({ lembas: { reason: "edit mode asks before running commands", purpose: "write out.txt", always: "echo and cat commands, for this session" } });
    // The spec's three options, "session" naming the rules it keeps.
    expect(a.permissionRequests[0]?.options).toEqual([
      { optionId: "once", name: "Allow once", kind: "allow_once" },
      { optionId: "session", name: "Always allow echo and cat commands, for this session (Bash(echo:*), Bash(cat:*))", kind: "allow_always" },
      { optionId: "deny", name: "Deny", kind: "reject_once" },
    ]);
    // What the client then shows for the running call says the same.
    expect(titleOf(card?.toolCallId)).toBe(`Run ${command}`);
  });

  test("a command holding backticks is fenced so it shows whole", async () => {
    const command = "echo '```' > fence.md";
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    await promptIn("edit");
    const content = a.permissionRequests[0]?.toolCall.content?.[0] as { content: { text: string } } | undefined;
    expect(content?.content.text).toBe(`\`\`\`\`sh\n${command}\n\`\`\`\`\nin ${a.project}`);
  });

  test("a write's card carries its diff, computed before it runs", async () => {
    a.model.push(step({ toolCalls: [{ name: "write", arguments: { path: "notes.md", content: "# Notes\n" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    await promptIn("manual");
    const card = a.permissionRequests[0]?.toolCall;
    expect(card?.title).toBe("Write notes.md");
    expect(card?.content).toEqual([{ type: "diff", path: join(a.project, "notes.md"), oldText: null, newText: "# Notes\n" }]);
  });

  test("an edit's card carries the file before and after the edit", async () => {
    writeFileSync(join(a.project, "a.txt"), "one\ntwo\nthree\n");
    a.model.push(
      step({ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }),
      step({ toolCalls: [{ name: "edit", arguments: { path: "a.txt", old_string: "two", new_string: "TWO" } }] }),
      step({ text: "ok" }),
    );
    await promptIn("manual");
    const card = a.permissionRequests[0]?.toolCall;
    expect(card?.title).toBe("Edit a.txt");
    expect(card?.content).toEqual([{ type: "diff", path: join(a.project, "a.txt"), oldText: "one\ntwo\nthree\n", newText: "one\nTWO\nthree\n" }]);
  });
});

describe("a denial reads as the person's", () => {
  /** The text of the last update the client got for a call. */
  const textOf = (callId: string | undefined) =>
    a.updates
      .map((u) => u.update as { toolCallId?: string; content?: { content?: { text?: string } }[] })
      .filter((u) => u.toolCallId === callId && u.content)
      .at(-1)?.content?.[0]?.content?.text;

  test("the tool call says denied by you, with the person's words, and not the rule that asked", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" }, _meta: { lembas: { feedback: "use the Makefile" } } });
    await promptIn("edit");
    expect(textOf(a.permissionRequests[0]?.toolCall.toolCallId)).toBe("denied by you: “use the Makefile”");
    // The step after the denial, not whatever came last (the session's title is asked for beside the turn).
    const told = a.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.findLast((m) => m.role === "tool")?.content;
    expect(JSON.stringify(told)).toContain("The person denied this bash call. They said: use the Makefile");
  });

  test("a No without words is denied by you too", async () => {
    a.model.push(step({ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }), step({ text: "ok" }));
    a.onPermission = () => ({ outcome: { outcome: "selected", optionId: "deny" } });
    await promptIn("edit");
    expect(textOf(a.permissionRequests[0]?.toolCall.toolCallId)).toBe("denied by you");
  });
});
