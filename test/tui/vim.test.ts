/** Vim's keys on a draft, as src/tui/vim.ts says what each does (the composer applies it; test/tui/vim-mode.test.ts types them). */
import { describe, expect, test } from "bun:test";
import { Vim, type VimBuffer } from "../../src/tui/vim-keys.ts";
import type { Atom } from "../../src/tui/vim-motions.ts";

/** The paste markers of the lines, as the composer gives them to vim (each one character). */
function markers(lines: readonly string[]): Atom[] {
  return lines.flatMap((text, line) => [...text.matchAll(/\[paste #\d+ \+\d+ lines\]/g)].map((m) => ({ line, from: m.index, to: m.index + m[0].length })));
}

/** Types `keys` in normal mode (Esc first) on `text` with the cursor at `line`,`col`; the text and cursor after, `|` marking the cursor. */
function typed(text: string, keys: string, at: { line: number; col: number } = { line: 0, col: 0 }): string {
  const vim = new Vim();
  let buffer: VimBuffer = { lines: text.split("\n"), ...at };
  const withMarkers = (b: VimBuffer): VimBuffer => ({ ...b, atoms: markers(b.lines) });
  vim.escape(buffer);
  const undo: VimBuffer[] = [];
  for (const key of keys) {
    if (vim.mode === "insert") {
      if (key === "⎋") {
        const action = vim.escape(withMarkers(buffer));
        if (action.kind === "move") buffer = { ...buffer, line: action.line, col: action.col };
        continue;
      }
      const line = buffer.lines[buffer.line] ?? "";
      buffer = { ...buffer, lines: buffer.lines.with(buffer.line, line.slice(0, buffer.col) + key + line.slice(buffer.col)), col: buffer.col + 1 };
      continue;
    }
    const action = vim.key(key, withMarkers(buffer));
    if (action.kind === "move") buffer = { ...buffer, line: action.line, col: action.col };
    else if (action.kind === "edit") {
      undo.push(buffer);
      buffer = action.buffer;
    } else if (action.kind === "undo") buffer = undo.pop() ?? buffer;
  }
  return buffer.lines.map((line, i) => (i === buffer.line ? `${line.slice(0, buffer.col)}|${line.slice(buffer.col)}` : line)).join("\n");
}

describe("vim's motions", () => {
  test("h j k l move by a character and a line, with counts", () => {
    expect(typed("abcdef\nxyz", "lll")).toBe("abc|def\nxyz");
    expect(typed("abcdef\nxyz", "5lj")).toBe("abcdef\nxy|z");
    expect(typed("abcdef\nxyz", "2h", { line: 0, col: 3 })).toBe("a|bcdef\nxyz");
    expect(typed("abcdef\nxyz", "k", { line: 1, col: 1 })).toBe("a|bcdef\nxyz");
  });

  test("w b e go by words, punctuation being its own word, across lines", () => {
    expect(typed("foo bar.baz qux", "w")).toBe("foo |bar.baz qux");
    expect(typed("foo bar.baz qux", "ww")).toBe("foo bar|.baz qux");
    expect(typed("foo bar\nbaz", "ww")).toBe("foo bar\n|baz");
    expect(typed("foo bar", "e")).toBe("fo|o bar");
    expect(typed("foo bar", "ee")).toBe("foo ba|r");
    expect(typed("foo bar", "b", { line: 0, col: 5 })).toBe("foo |bar");
    expect(typed("foo\nbar", "b", { line: 1, col: 0 })).toBe("|foo\nbar");
  });

  test("0 ^ $ go to the line's start, its first non-blank and its last character", () => {
    expect(typed("  indented line", "$")).toBe("  indented lin|e");
    expect(typed("  indented line", "$^")).toBe("  |indented line");
    expect(typed("  indented line", "$0")).toBe("|  indented line");
  });
});

describe("vim's edits", () => {
  test("x deletes the character under the cursor; D to the line's end; dw a word; dd the line", () => {
    expect(typed("abc", "x")).toBe("|bc");
    expect(typed("one two three", "wD")).toBe("one| ");
    expect(typed("one two three", "dw")).toBe("|two three");
    expect(typed("one two", "wdw")).toBe("one| ");
    expect(typed("a\nb\nc", "jdd")).toBe("a\n|c");
    expect(typed("a\nb\nc", "2dd")).toBe("|c");
    expect(typed("one two three", "wd$")).toBe("one| ");
    expect(typed("one two three", "de")).toBe("| two three");
    expect(typed("one two three", "db", { line: 0, col: 8 })).toBe("one |three");
    expect(typed("one\ntwo", "yyp")).toBe("one\n|one\ntwo");
  });

  test("cw changes to the word's end, C to the line's end; i a I A o O insert where vim does", () => {
    expect(typed("one two", "cwsix⎋")).toBe("si|x two");
    expect(typed("one two", "wCend⎋")).toBe("one en|d");
    expect(typed("abc", "lix⎋")).toBe("a|xbc");
    expect(typed("abc", "lax⎋")).toBe("ab|xc");
    expect(typed("  abc", "$Ix⎋")).toBe("  |xabc");
    expect(typed("abc", "Ax⎋")).toBe("abc|x");
    expect(typed("abc", "ox⎋")).toBe("abc\n|x");
    expect(typed("abc", "Ox⎋")).toBe("|x\nabc");
  });

  test("p puts what was deleted after the cursor (whole lines below), and u takes back the last change", () => {
    expect(typed("abc", "xp")).toBe("b|ac");
    expect(typed("one\ntwo", "ddp")).toBe("two\n|one");
    expect(typed("one two", "dwu")).toBe("|one two");
    expect(typed("a\nb", "ddu")).toBe("|a\nb");
  });
});

describe("a folded paste's marker is one character to vim", () => {
  const M = "[paste #1 +300 lines]";
  test("motions step over it whole and never stop inside it", () => {
    expect(typed(`ab ${M} cd`, "wl")).toBe(`ab ${M}| cd`);
    expect(typed(`ab ${M} cd`, "ww")).toBe(`ab ${M} |cd`);
    expect(typed(`ab ${M} cd`, "wwh")).toBe(`ab ${M}| cd`);
    expect(typed(`ab ${M} cd`, "wwhh")).toBe(`ab |${M} cd`);
    expect(typed(`ab ${M}`, "$")).toBe(`ab |${M}`);
    expect(typed(`ab ${M} cd`, "ee")).toBe(`ab |${M} cd`);
    expect(typed(`ab ${M} cd`, "$b")).toBe(`ab ${M} |cd`);
    expect(typed(`ab ${M} cd`, "$bb")).toBe(`ab |${M} cd`);
  });

  test("x, dw, D, cw, dh and de take it whole or not at all", () => {
    expect(typed(`ab ${M} cd`, "wx")).toBe("ab | cd");
    expect(typed(`ab ${M} cd`, "wdw")).toBe("ab |cd");
    expect(typed(`ab ${M} cd`, "wD")).toBe("ab| ");
    expect(typed(`ab ${M} cd`, "lD")).toBe("|a");
    expect(typed(`ab ${M} cd`, "wcwX⎋")).toBe("ab | cd".replace("| ", "|X "));
    expect(typed(`${M}x`, "$dh")).toBe("|x");
    expect(typed(`ab ${M} cd`, "wde")).toBe("ab | cd");
    expect(typed(`ab ${M}`, "d$")).toBe("|");
    // Put after a marker goes after all of it.
    expect(typed(`ab ${M}`, "xwp")).toBe(`b ${M}|a`);
  });
});

describe("vim's jumps, finds and text objects (as Claude Code's vim mode has them)", () => {
  test("gg and G go to the first and last line (line N with a count), dG and dgg take whole lines", () => {
    expect(typed("one\n  two\nthree", "G")).toBe("one\n  two\n|three");
    expect(typed("one\n  two\nthree", "Ggg")).toBe("|one\n  two\nthree");
    expect(typed("one\n  two\nthree", "2G")).toBe("one\n  |two\nthree");
    expect(typed("one\ntwo\nthree", "dG", { line: 1, col: 0 })).toBe("|one");
    expect(typed("one\ntwo\nthree", "dgg", { line: 1, col: 0 })).toBe("|three");
  });

  test("f F t T find a character on the line, ; and , repeat it either way, and d/c take up to it", () => {
    expect(typed("a,b,c,d", "f,")).toBe("a|,b,c,d");
    expect(typed("a,b,c,d", "f,;")).toBe("a,b|,c,d");
    expect(typed("a,b,c,d", "f,;,")).toBe("a|,b,c,d");
    expect(typed("a,b,c,d", "2f,")).toBe("a,b|,c,d");
    expect(typed("a,b,c,d", "t,;")).toBe("a,|b,c,d");
    expect(typed("a,b,c,d", "F,", { line: 0, col: 6 })).toBe("a,b,c|,d");
    expect(typed("a,b,c,d", "T,", { line: 0, col: 6 })).toBe("a,b,c,|d");
    expect(typed("a,b,c,d", "fz")).toBe("|a,b,c,d");
    expect(typed("call(x, y)", "df(")).toBe("|x, y)");
    expect(typed("call(x, y)", "dt(")).toBe("|(x, y)");
    expect(typed("call(x, y)", "ct)z⎋")).toBe("|z)");
  });

  test("r replaces the character under the cursor (count of them), J joins lines with one space", () => {
    expect(typed("cat", "rb")).toBe("|bat");
    expect(typed("cat", "2rx")).toBe("x|xt");
    expect(typed("cat", "5rx")).toBe("|cat");
    expect(typed("one\n   two\nthree", "J")).toBe("one| two\nthree");
    expect(typed("one\ntwo\nthree", "3J")).toBe("one two| three");
    expect(typed("one", "J")).toBe("|one");
  });

  test("text objects with d, c and y: iw aw, i\" a\", i( a( (and b, [, {)", () => {
    expect(typed("foo bar baz", "diw", { line: 0, col: 5 })).toBe("foo | baz");
    expect(typed("foo bar baz", "daw", { line: 0, col: 5 })).toBe("foo |baz");
    expect(typed("foo bar", "daw", { line: 0, col: 5 })).toBe("fo|o");
    expect(typed("foo bar baz", "ciwX⎋", { line: 0, col: 5 })).toBe("foo |X baz");
    expect(typed('say "hi there" now', 'di"', { line: 0, col: 7 })).toBe('say "|" now');
    expect(typed('say "hi there" now', 'da"', { line: 0, col: 7 })).toBe("say |now");
    expect(typed('say "hi" now', 'ci"yo⎋')).toBe('say "y|o" now');
    expect(typed("f(a, (b), c) + 1", "di(", { line: 0, col: 3 })).toBe("f(|) + 1");
    expect(typed("f(a, (b), c) + 1", "da(", { line: 0, col: 6 })).toBe("f(a, |, c) + 1");
    expect(typed("f(a, (b), c) + 1", "dib", { line: 0, col: 6 })).toBe("f(a, (|), c) + 1");
    expect(typed("x = [1, 2]", "ci[9⎋", { line: 0, col: 6 })).toBe("x = [|9]");
    expect(typed("fn {\n  body\n}", "di{", { line: 1, col: 3 })).toBe("fn {|}");
    expect(typed("no brackets", "di(")).toBe("|no brackets");
  });

  test("y with a motion or a text object, yy, then p and P put it", () => {
    expect(typed("foo bar", "yiwP", { line: 0, col: 4 })).toBe("foo ba|rbar");
    expect(typed("foo bar", "ywP")).toBe("foo| foo bar");
    expect(typed("one\ntwo", "yyjp")).toBe("one\ntwo\n|one");
    expect(typed("a,b", "yt,$p")).toBe("a,b|a");
  });
});
