import { expect, test } from "bun:test";
import { show } from "../../src/tui/commands/settings.ts";

test("/settings shows an instance's value as one clean line: no escapes, no breaks, a long one cut", () => {
  expect(show("Be \x1b[31mred\x1b[0m\nand\r\nterse\x07")).toBe("Be red and terse");
  const long = show(`${"word ".repeat(200_000)}`);
  expect(long.length).toBe(120);
  expect(long).toEndWith("…");
  expect(show(null)).toBe("not set");
});
