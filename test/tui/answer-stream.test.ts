/**
 * The streaming answer drawn chunk by chunk is the answer drawn whole: the parts it cuts at blank
 * lines (outside code fences) and the live part given its text only when drawn must not change what
 * is shown, however the text is cut into chunks — a long line with no end yet, a fence opened in
 * one chunk and closed in another, a blank line split across chunks.
 */
import { describe, expect, test } from "bun:test";
import { AnswerBlock } from "../../src/tui/blocks/answer.ts";
import { makeTheme, markdownTheme } from "../../src/tui/theme.ts";

const theme = markdownTheme(makeTheme("dark", false));

const SAMPLES = [
  `${"word ".repeat(400)}\n\nnext paragraph\n`,
  "intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter the fence\n\n- item one\n\n  more of item one\n- item two\n",
  "~~~\n```\nstill code\n\n~~~\n\ndone",
  `# Title\n\n${"a".repeat(3000)}\n\n${"b ".repeat(500)}`,
];

function streamed(text: string, size: number, drawEvery: number): string[] {
  const block = new AnswerBlock(theme);
  for (let i = 0, n = 0; i < text.length; i += size, n++) {
    block.append(text.slice(i, i + size));
    if (n % drawEvery === 0) block.render(80);
  }
  return [...block.render(80)];
}

describe("the streaming answer", () => {
  for (const [i, text] of SAMPLES.entries()) {
    test(`sample ${i}: drawn chunk by chunk as drawn whole`, () => {
      const whole = [...new AnswerBlock(theme, text).render(80)];
      for (const size of [1, 3, 17, 250]) {
        for (const drawEvery of [1, 7]) expect(streamed(text, size, drawEvery)).toEqual(whole);
      }
    });
  }

  test("its text is what was appended, drawn or not", () => {
    const block = new AnswerBlock(theme);
    block.append("one ");
    block.append("two\n\nthree");
    expect(block.text).toBe("one two\n\nthree");
    expect(block.render(80).join("\n")).toContain("three");
  });
});
