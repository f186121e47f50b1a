import { afterAll, expect, test } from "bun:test";
import { expandMentions } from "../../src/project/attach.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { cleanup, tempDir, writeFiles } from "./tree.ts";

afterAll(cleanup);

const expand = (root: string, text: string) => expandMentions(text, { cwd: root, root, roots: null, protectedPaths: protectedPaths([], []) }).text.slice(text.length + 2);

test("ranges are read line by line: a last line without a newline, a range past the end, a long line across read chunks", () => {
  const long = "€".repeat(25_000); // 75 KB: across read chunks, within one mention's budget
  const root = writeFiles(tempDir(), { "a.txt": "one\ntwo\nthree", "b.txt": `first\n${long}\nthird\n` });
  expect(expand(root, "@a.txt#3-9")).toBe('<file path="a.txt" lines="3-3">\n     3\tthree\n</file>');
  expect(expand(root, "@a.txt#5-6")).toBe('<file path="a.txt" lines="5-6">\n\n[the file has 3 lines]\n</file>');
  expect(expand(root, "@b.txt#2-3")).toBe(`<file path="b.txt" lines="2-3">\n     2\t${long}\n     3\tthird\n</file>`);
});

test("a second range of one file, far down, is read right after a first one near the top", () => {
  const lines = Array.from({ length: 12_000 }, (_, i) => `line ${i + 1}`).join("\n");
  const root = writeFiles(tempDir(), { "c.txt": `${lines}\n` });
  const text = expand(root, "@c.txt#2-2 @c.txt#11001-11002 @c.txt#1500");
  expect(text).toContain('lines="2-2">\n     2\tline 2\n</file>');
  expect(text).toContain('lines="11001-11002">\n 11001\tline 11001\n 11002\tline 11002\n</file>');
  expect(text).toContain('lines="1500-1500">\n  1500\tline 1500\n</file>');
});

test("a long line of many-byte characters past the budget is cut with a note, never shown short without one", () => {
  const root = writeFiles(tempDir(), { "wide.txt": `${"日".repeat(300_000)}\nnext\n` });
  expect(expand(root, "@wide.txt")).toBe('<file path="wide.txt">\n\n[… cut at line 0: read the file for the rest]\n</file>');
});
