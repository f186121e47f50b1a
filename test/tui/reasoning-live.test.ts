/**
 * The reasoning while it streams shows its newest lines, found from its end (blocks/reasoning.ts's
 * liveLines): the same lines as wrapping all of it, whatever its lines and the width; and its
 * chunks, cleaned a frame at a time, draw what the whole text does.
 */
import { describe, expect, test } from "bun:test";
import { liveLines, ReasoningBlock } from "../../src/tui/blocks/reasoning.ts";
import { hanging } from "../../src/tui/blocks/lines.ts";
import { makeTheme } from "../../src/tui/theme.ts";

/** What the live reasoning showed before: all of it wrapped, its last six lines under "  …". */
function whole(text: string, width: number): string[] {
  const lines = hanging(text, width, "∴ ", "  ");
  return lines.length > 6 ? ["  …", ...lines.slice(-6)] : lines;
}

const SAMPLES = [
  "short",
  "one\ntwo\nthree",
  "a\nb\nc\nd\ne\nf\ng\nh",
  `${"long first line ".repeat(40)}\nthen short`,
  `first\n${"a line that wraps at a narrow width ".repeat(3)}\n\n\nlast`,
  Array.from({ length: 200 }, (_, i) => `step ${i}: ${"word ".repeat(i % 23)}`).join("\n"),
  `only one long line ${"x".repeat(500)} ${"y ".repeat(300)}`,
];

describe("the live reasoning", () => {
  for (const [i, text] of SAMPLES.entries()) {
    test(`sample ${i}: its newest lines are those of all of it wrapped`, () => {
      for (const width of [10, 23, 40, 80, 200]) expect(liveLines(text, width)).toEqual(whole(text, width));
    });
  }

  test("streamed chunk by chunk, drawn now and then, it draws what the whole text draws", () => {
    const theme = makeTheme("dark", false);
    const text = SAMPLES[5] ?? "";
    const streamed = new ReasoningBlock(theme);
    for (let i = 0; i < text.length; i += 7) {
      streamed.append(text.slice(i, i + 7));
      if (i % 91 === 0) streamed.render(60);
    }
    const once = new ReasoningBlock(theme);
    once.append(text);
    expect([...streamed.render(60)]).toEqual([...once.render(60)]);
    expect(streamed.render(60).join("\n")).toContain("step 199");
  });
});
