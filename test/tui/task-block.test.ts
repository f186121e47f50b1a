import { expect, test } from "bun:test";
import { makeTheme } from "../../src/tui/theme.ts";
import { Transcript } from "../../src/tui/transcript.ts";

const lines = (t: Transcript): string[] => t.blocks.flatMap((b) => [...b.render(80)]).map((l) => l.trimEnd());

test("a task's block shows one indented line per helper call, marked as it runs, ends or fails", () => {
  const t = new Transcript(makeTheme("dark", false));
  t.apply({ type: "tool_start", callId: "c1", name: "task", args: {}, title: "Task: find the needle", kind: "think", locations: [] });
  t.apply({ type: "sub_tool", parentCallId: "c1", callId: "h1", name: "grep", title: 'Search for "needle"', status: "in_progress" });
  expect(lines(t)).toEqual(["", "○ Task: find the needle", '    ○ Search for "needle"']);
  t.apply({ type: "sub_tool", parentCallId: "c1", callId: "h1", name: "grep", title: 'Search for "needle"', status: "completed" });
  t.apply({ type: "sub_tool", parentCallId: "c1", callId: "h2", name: "read", title: "Read gone.txt", status: "in_progress" });
  t.apply({ type: "sub_tool", parentCallId: "c1", callId: "h2", name: "read", title: "Read gone.txt", status: "failed" });
  // A helper's call of another call is not drawn under this one.
  expect(t.apply({ type: "sub_tool", parentCallId: "other", callId: "h3", name: "read", title: "Read x", status: "in_progress" })).toBe(false);
  t.apply({ type: "tool_end", callId: "c1", name: "task", output: "a.txt:2", isError: false });
  expect(lines(t)).toEqual(["", "● Task: find the needle", '    ● Search for "needle"', "    ✗ Read gone.txt", "  ⎿ a.txt:2"]);
});
