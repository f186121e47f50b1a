import { describe, expect, test } from "bun:test";
import { dirPartOf } from "../../src/project/dir-part.ts";
import { prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A query's directory part is matched over every directory at once, each going on from its
// parent's match: it must find what a greedy scan of each directory's whole path finds.

function greedy(text: string, part: string): number {
  let at = 0;
  let found = 0;
  for (const char of part) {
    const next = text.indexOf(char, at);
    if (next < 0) break;
    at = next + 1;
    found++;
  }
  return found;
}

describe("a query's directory part over the directories", () => {
  // Deepest first, as a listing may give them: a directory's parent is met after it.
  const paths = [
    "src/Comp/header/deep/x/a.ts",
    "src/Comp/header/b.ts",
    "src/comp/c.ts",
    "lib/components/header/hd.ts",
    "lib/components/d.ts",
    "top.ts",
    "tests/cmp/p/h.ts",
    "src/Comp/header/deep/y.ts",
    // The Kelvin sign lowercases to an ASCII `k`: a directory's name is matched as lowercased.
    "lib/\u212Aelvin/ÄRGER/z.ts",
  ];
  const prep = prepare(paths, new Uint8Array(paths.length));

  test("every directory's parent comes before it and is the start of its path", () => {
    for (let folder = 0; folder < prep.folders.length; folder++) {
      const parent = prep.folderParent[folder] ?? -1;
      const path = prep.folders[folder] ?? "";
      if (!path.includes("/")) expect(parent).toBe(-1);
      else expect({ path, parent: prep.folders[parent] }).toEqual({ path, parent: path.slice(0, path.lastIndexOf("/")) });
      expect(parent).toBeLessThan(folder);
    }
  });

  test("each directory holds the part when a scan of its whole path finds it", () => {
    for (const query of ["comp/x", "cmp/x", "src/c/x", "Comp/x", "sch/x", "hdeep/x", "/x", "zz/x", "c/h/d/x", "lh/x", "kel/x", "lkä/x", "Ä/x"]) {
      const split = queryOf(query).split;
      if (!split) throw new Error(`${query} has no directory part`);
      const sensitive = query !== query.toLowerCase();
      prep.dirPart = null;
      const part = dirPartOf(prep, split.dir, sensitive);
      const texts = sensitive ? prep.folders : prep.foldersLower;
      const want = split.dir.query;
      const expected = texts.map((text) => ({ text, found: greedy(text, want), fits: greedy(text, want) === want.length ? 1 : 0 }));
      const got = texts.map((text, folder) => ({ text, found: part.done[folder], fits: part.fits[folder + 1] }));
      expect({ query, got }).toEqual({ query, got: expected });
      expect({ query, top: part.fits[0] }).toEqual({ query, top: want.length === 0 ? 1 : 0 });
    }
  });
});
