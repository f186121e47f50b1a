/**
 * How a long message is folded for the transcript (src/tui/blocks/folded-message.ts): what stays
 * whole, what is left out and how it is counted, and that its last line is shown by its end.
 */
import { describe, expect, test } from "bun:test";
import { foldedMessage } from "../../src/tui/blocks/folded-message.ts";

const fold = (text: string, width = 40) => foldedMessage(text, width, "› ", "  ");
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join("\n");

describe("a long message folded", () => {
  test("a message of up to 20 rows is drawn whole, its trailing blank lines left out", () => {
    expect(fold(lines(20))).toEqual({ head: lines(20).split("\n").map((l, i) => `${i === 0 ? "› " : "  "}${l}`), hidden: null, tail: [] });
    expect(fold(`hi\n${"\n".repeat(40)}`)).toEqual({ head: ["› hi"], hidden: null, tail: [] });
  });

  test("a longer one shows its first 8 rows, a count of the lines left out, and its last line", () => {
    const folded = fold(lines(21));
    expect(folded.head).toHaveLength(8);
    expect(folded.head[7]).toBe("  line 7");
    expect(folded.hidden).toBe("… 12 more lines");
    expect(folded.tail).toEqual(["  line 20"]);
    expect(fold(lines(60_001)).hidden).toBe("… 59,992 more lines");
  });

  test("one long line: its first rows, the characters left out, and its end on one row", () => {
    const text = `${"word ".repeat(1000)}the end`;
    const folded = fold(text);
    expect(folded.head).toHaveLength(8);
    expect(folded.hidden).toMatch(/^… [\d,]+ more characters$/);
    const hidden = Number(folded.hidden?.replace(/\D/g, ""));
    // Near the text's length less what is shown (the spaces a wrap drops are not counted).
    expect(hidden).toBeGreaterThan(text.length - 9 * 40);
    expect(hidden).toBeLessThan(text.length - 8 * 30);
    expect(folded.tail).toHaveLength(1);
    expect(folded.tail[0]).toMatch(/^  ….*word the end$/);
    expect(folded.tail[0]?.length).toBe(40);
  });

  test("a long first line and more lines: the cut line is said too, not only the lines", () => {
    const folded = fold(`${"x".repeat(2000)}\nsecond\nthird`);
    expect(folded.hidden).toBe("… the rest of a long line and 1 more line");
    expect(folded.tail).toEqual(["  third"]);
  });

  test("control sequences in the shown part are cleaned, as a whole message's were", () => {
    const folded = fold(`\x1b]0;title\x07${lines(30)}`);
    expect(folded.head[0]).toBe("› line 0");
  });
});
