import { expect, test } from "bun:test";
import { MAX_TOOL_NAME, offeredToolName } from "../../src/mcp/names.ts";

test("names are mcp__<server>__<tool>, sanitised to [A-Za-z0-9_-]", () => {
  expect(offeredToolName("git hub", "search.issues/v2", new Set())).toBe("mcp__git_hub__search_issues_v2");
});

test("a long name is cut to 64 characters, and names that collide get a numbered suffix", () => {
  const taken = new Set<string>();
  const long = "x".repeat(100);
  const first = offeredToolName("srv", long, taken);
  const second = offeredToolName("srv", `${long}y`, taken);
  expect(first).toHaveLength(MAX_TOOL_NAME);
  expect(second).toHaveLength(MAX_TOOL_NAME);
  expect(second).toEndWith("_2");
  expect(offeredToolName("a", "b.c", taken)).toBe("mcp__a__b_c");
  expect(offeredToolName("a", "b/c", taken)).toBe("mcp__a__b_c_2");
});
