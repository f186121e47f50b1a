/**
 * marked's setext-heading rule is tried only on text with an underline (src/tui/kit.ts): headings
 * underlined with === or --- are still headings, and a long paragraph streaming (no underline
 * anywhere) is drawn without the rule's microsecond a character.
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

  test("a 60,000-character paragraph is drawn in a few milliseconds, not 80", () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `w${i % 10} `).join("");
    draw("warm up");
    const start = performance.now();
    const lines = new Markdown(long, 0, 0, theme).render(120);
    const took = performance.now() - start;
    expect(lines.length).toBeGreaterThan(400);
    expect(took).toBeLessThan(40);
  });
});
