import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { type EngineHarness, engineHarness, helperStep, isHelper, ofType, ownStep } from "../support/engine.ts";
import { type ChatRequest, contentText } from "../support/model.ts";
import { ROOT } from "../support/run.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const toolNames = (body: ChatRequest | undefined): string[] => (body?.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

test("the task tool's helper gets the session's read-only MCP tools, never its exec ones", async () => {
  h = await engineHarness({ mcp: true, config: { mcp: { notes: { command: process.execPath, args: [SERVER] } } } });
  h.model.push(
    ownStep({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "read the note", prompt: "What does note a say?" } }] }),
    helperStep({ toolCalls: [{ id: "h1", name: "mcp__notes__read_note", arguments: { name: "a" } }] }),
    helperStep({ text: "note a says: buy milk" }),
    ownStep({ text: "buy milk" }),
  );
  const session = await h.session({ mode: "plan" });
  await session.prompt({ text: "what does note a say?" });
  const helper = h.model.requests.filter((r) => isHelper(r.body));
  const names = toolNames(helper[0]?.body);
  expect(names.slice(0, 4)).toEqual(["read", "grep", "glob", "list"]);
  // read_note and lookup say readOnlyHint; the others do not.
  expect(names.filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__notes__read_note", "mcp__notes__lookup"]);
  expect(contentText(helper[0]?.body.messages?.[0]?.content)).toContain("the read-only tools of MCP servers");
  expect(contentText(helper[1]?.body.messages?.at(-1)?.content)).toContain("note a: buy milk");
  expect(ofType(h.events(session), "sub_tool").map((e) => [e.name, e.status])).toEqual([
    ["mcp__notes__read_note", "in_progress"],
    ["mcp__notes__read_note", "completed"],
  ]);
}, 30_000);
