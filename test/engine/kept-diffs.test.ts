import { expect, test } from "bun:test";
import { KEPT_DIFF_CHARS, keptDiffs } from "../../src/engine/kept-diffs.ts";

test("a diff is kept whole as it was shown; one of a file too large to keep at every edit is narrowed to its change and the lines around it", () => {
  const small = { path: "/p/a.md", oldText: "# Hi\nthere\n", newText: "# Hello\nthere\n" };
  const made = { path: "/p/b.md", oldText: null, newText: "new\n" };
  expect(keptDiffs([small, made])).toEqual([small, made]);

  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a long file`);
  const before = lines.join("\n");
  const after = lines.map((l, i) => (i === 10_000 ? "changed" : l)).join("\n");
  expect(before.length + after.length).toBeGreaterThan(KEPT_DIFF_CHARS);
  const [kept] = keptDiffs([{ path: "/p/big.md", oldText: before, newText: after }]);
  const old = kept?.oldText?.split("\n") ?? [];
  const now = kept?.newText.split("\n") ?? [];
  // The change with 20 lines each side, and a line each way saying what was left out, alike in both.
  expect(old.length).toBe(43);
  expect(now.length).toBe(43);
  expect(old[0]).toBe("[… 9980 unchanged lines above …]");
  expect(now[0]).toBe(old[0]);
  expect(old.at(-1)).toBe("[… 9979 unchanged lines below …]");
  expect(old[21]).toBe("line 10000 of a long file");
  expect(now[21]).toBe("changed");
  expect(old[1]).toBe("line 9980 of a long file");
});
