import { expect, test } from "bun:test";
import { StatusBar } from "../../src/tui/status-bar.ts";
import { makeTheme } from "../../src/tui/theme.ts";

// The token count in the status bar says how much of it the provider's cache served and took.
test("the status bar's token count says the cache's read and written tokens, summed over the session's calls", () => {
  const bar = new StatusBar(makeTheme("dark", false), () => 0);
  bar.apply({ type: "usage", promptTokens: 900, completionTokens: 100 });
  expect(bar.render(200).join("")).toEndWith("1.0k tokens");
  bar.apply({ type: "usage", promptTokens: 5_320, completionTokens: 4, cacheReadTokens: 5_000, cacheWriteTokens: 300 });
  bar.apply({ type: "usage", promptTokens: 5_400, completionTokens: 6, cacheReadTokens: 5_300 });
  const line = bar.render(200).join("");
  expect(line).toMatch(/ tokens \(10k cached, 300 cache written\)$/);
});
