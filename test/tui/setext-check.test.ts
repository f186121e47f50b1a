/**
 * marked's setext-heading rule is tried only on text with an underline (src/tui/kit.ts): headings
 * underlined with === or --- are still headings, and what has no underline is drawn as before.
 */
import { describe, expect, test } from "bun:test";
import { Markdown } from "../../src/tui/kit.ts";
import { makeTheme, markdownTheme } from "../../src/tui/theme.ts";

const theme = markdownTheme(makeTheme("dark", false));
const draw = (text: string) => new Markdown(text, 0, 0, theme).render(80).join("\n");

describe("setext headings", () => {
  test("a paragraph underlined with === or --- is a heading, as with #", () => {
    expect(draw("Title\n===\n\nbody")).toBe(draw("# Title\n\nbody"));
    expect(draw("Sub title\n---")).toBe(draw("## Sub title"));
    expect(draw("Title\n   ===")).toBe(draw("# Title"));
    expect(draw("two lines\nof title\n---")).toContain("of title");
    expect(draw("two lines\nof title\n---")).not.toBe(draw("two lines\nof title\n\n---"));
    expect(draw("intro\n\nTitle\n=====\n\nmore")).toBe(draw("intro\n\n# Title\n\nmore"));
  });

  test("what is no setext heading stays what it was", () => {
    // Four spaces of indent make no underline; a blank line before --- makes a rule.
    expect(draw("text\n    ===")).not.toBe(draw("# text"));
    expect(draw("text\n\n---\n")).not.toBe(draw("## text"));
    expect(draw("a - b = c\nd")).toContain("a - b = c");
  });

  // How fast it is drawn is bench/share.ts's figure, not a test's: here, that it is drawn whole.
  test("a 60,000-character paragraph with no underline is drawn whole, as one paragraph", () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `w${i % 10}`).join(" ");
    const lines = new Markdown(long, 0, 0, theme).render(120);
    expect(lines.length).toBeGreaterThan(400);
    expect(lines.map((l) => l.trim()).join(" ").replace(/\s+/g, " ").trim()).toBe(long);
  });
});
