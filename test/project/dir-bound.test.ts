import { describe, expect, test } from "bun:test";
import { align, bestScore } from "../../src/project/align.ts";
import { dirPartOf, folderMost, folderScore } from "../../src/project/dir-part.ts";
import { rank } from "../../src/project/fuzzy.ts";
import { type Prepared, prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A query with `/` scores a directory whose path has a segment starting with the whole directory
// part as the best any can get, without aligning it, and bounds every other directory below that:
// the bound must never fall below the directory's alignment, the score must be the alignment, and
// no match may be lost from the top of a search.

/** Deterministic directory paths over a small alphabet: segments starting with the part, holding it after a delimiter, split by a `/`, in either case. */
function generated(count: number, seed: number): string[] {
  let a = seed;
  const next = () => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return a >>> 8;
  };
  const pieces = ["comp", "Comp", "co", "mp", "c", "o", "p", "x", "-", "_", ".", " ", "h", "hd", "COMP", "cmp"];
  const segment = () => Array.from({ length: 1 + (next() % 3) }, () => pieces[next() % pieces.length]).join("");
  const out = new Set<string>();
  while (out.size < count) {
    const dirs = Array.from({ length: 1 + (next() % 4) }, segment);
    out.add(`${next() % 9 === 0 ? "/" : ""}${dirs.join("/")}/${["h.ts", "hd.md", "Hdr.ts", "x"][next() % 4]}`);
  }
  return [...out];
}

const PARTS = ["comp", "Comp", "co", "c", "o", "mp", "cmp", "omp", "-c", ".c", "c.o", "c-o", "compcomp", "COMP", "cOmP", "p/c", "comp/co", "x", "h", " c", "_"];

function ranked(prep: Prepared, query: string, limit: number): string[] {
  prep.trail = [];
  prep.dirPart = null;
  return rank(prep, query, { limit }).map((r) => `${prep.paths[r.id]} ${r.score}`);
}

describe("a directory part's bound and score per directory", () => {
  const paths = generated(4000, 5);
  const prep = prepare(paths, new Uint8Array(paths.length));

  test("the bound is never below the directory's alignment, and the score is the alignment", () => {
    let led = 0;
    for (const part of PARTS) {
      const split = queryOf(`${part}/h`).split;
      if (!split) throw new Error(`${part}/h has no directory part`);
      const sensitive = part !== part.toLowerCase();
      prep.dirPart = null;
      const known = dirPartOf(prep, split.dir, sensitive);
      const texts = sensitive ? prep.folders : prep.foldersLower;
      for (let folder = 0; folder < prep.folders.length; folder++) {
        if (known.fits[folder + 1] !== 1) continue;
        const path = prep.folders[folder] ?? "";
        const want = align(texts[folder] ?? "", path, 0, path.length, split.dir.codes);
        const most = folderMost(prep, known, folder, split.dir);
        expect({ part, path, atLeast: most >= want }).toEqual({ part, path, atLeast: true });
        expect({ part, path, score: folderScore(prep, known, folder, split.dir) }).toEqual({ part, path, score: want });
        if (want === bestScore(split.dir.codes.length)) led++;
      }
    }
    // The generated paths reach the best score often: the shortcut is exercised, not only the alignment.
    expect(led).toBeGreaterThan(1000);
  });

  test("the best few of a search are the first of scoring every entry", () => {
    for (const part of PARTS) {
      for (const name of ["h", "hd", "Hd", "t", ""]) {
        const query = `${part}/${name}`;
        const all = ranked(prep, query, 1_000_000);
        for (const limit of [1, 5, 20]) expect({ query, limit, top: ranked(prep, query, limit) }).toEqual({ query, limit, top: all.slice(0, limit) });
      }
    }
  });
});
