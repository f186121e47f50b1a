import { describe, expect, test } from "bun:test";
import { align, alignBytes, bonusAt, startMaskOf } from "../../src/project/align.ts";
import { alignFolderPath } from "../../src/project/dir-part.ts";
import { boundInBytes, gapsInBytes } from "../../src/project/name-bound.ts";
import { orderRows } from "../../src/project/penalty-order.ts";
import { charBit, prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A keystroke turns rows down by the most their basename can score, the pairs of the query's
// characters that stand side by side in it read from its bytes, and aligns a query's directory
// part over the directory's names put together: each must hold for every entry, as scoring it does.

const NAMES = ["config.ts", "query.rs", "qxxxx_ry", "query-ry.ts", "ryquery", "Query.Ry", "a_b-c.d", "fOoBar", "x_yz_y", "queue-entry.ee", "a.b.c.ts", "book", "cfg.json", "configLoader.go", "user.rs", "usr-svc.ts", "UserService.kt", "query_builder.py", "qry.md", "header.tsx", "hdr", "HeaderDb.kt", "a", "aa.b", "x2y", "über-ärger.ts", "CfGlDr.ts", "ldr.cfg"];
const QUERIES = ["cfg", "usr", "qry", "qRy", "ry", "abcd", "obr", "fb", "xyy", "xy", "y_y", "qy", "ery", "eee", "oo", "c.ts", "hdr", "cf", "fg", "us", "sr", "er", "on", "cfgldr", "aa", "a.b", "x2", "hd", "Hd", "CfG", "ärg", "ldr.c"];

/**
 * What gapsInBytes should find for query character j in `text` (`orig` as written), by trying every
 * place: the most bonus a place of j earns; the most either place of j-1 and j side by side earns;
 * and, after the nearest j-1 before a place of j, its bonus less a point for each character past
 * the first between them (-64 when no j follows a j-1).
 */
function places(text: string, orig: Uint8Array, codes: Int32Array, j: number): { anywhere: number; inRun: number; afterGap: number } {
  let anywhere = 0;
  let inRun = 0;
  let afterGap = -64;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== codes[j]) continue;
    anywhere = Math.max(anywhere, bonusAt(orig, 0, i));
    if (i > 0 && text.charCodeAt(i - 1) === codes[j - 1]) inRun = Math.max(inRun, bonusAt(orig, 0, i - 1), bonusAt(orig, 0, i));
    const before = text.lastIndexOf(String.fromCharCode(codes[j - 1] ?? 0), i - 1);
    if (before >= 0 && before < i - 1) afterGap = Math.max(afterGap, bonusAt(orig, 0, i) - (i - before - 2));
  }
  return { anywhere, inRun, afterGap };
}

/** Whether `codes[j - 1]` and `codes[j]` stand side by side in `text`. */
function sideBySide(text: string, codes: Int32Array, j: number): boolean {
  return text.includes(String.fromCharCode(codes[j - 1] ?? 0, codes[j] ?? 0));
}

describe("a row's bound from its basename's bytes", () => {
  test("finds exactly the pairs that stand side by side, and what each pair's places earn", () => {
    for (const name of NAMES) {
      if (/[^\x00-\x7f]/.test(name)) continue;
      for (const query of QUERIES) {
        const p = queryOf(query).whole;
        const text = query !== query.toLowerCase() ? name : name.toLowerCase();
        const orig = Uint8Array.from(name, (c) => c.charCodeAt(0));
        // Within other bytes, which are not the basename's: what lies outside [from, to) is not read,
        // and the basename's first character starts a segment whatever stands before it.
        const bytes = Uint8Array.from(`q${text}_`, (c) => c.charCodeAt(0));
        let want = 0;
        for (let j = 1; j < p.codes.length; j++) if (sideBySide(text, p.codes, j)) want |= 1 << j;
        const found = gapsInBytes(bytes, Uint8Array.from(`q${name}_`, (c) => c.charCodeAt(0)), 1, bytes.length - 1, p);
        expect({ name, query, found }).toEqual({ name, query, found: want });
        // Every pair side by side: the bound is the most a name gives, and the scan stops there.
        if (found === (1 << p.codes.length) - 2) continue;
        for (let j = 1; j < p.codes.length; j++) {
          const want = places(text, orig, p.codes, j);
          const got = { anywhere: p.anywhere[j], inRun: p.inRun[j], afterGap: p.afterGap[j] };
          // Where j-1 and j stand side by side, what a place after a gap earns is not looked at.
          if ((found & (1 << j)) !== 0) got.afterGap = want.afterGap;
          expect({ name, query, j, got }).toEqual({ name, query, j, got: want });
        }
      }
    }
  });

  test("is never below the basename's score", () => {
    for (const name of NAMES) {
      if (/[^\x00-\x7f]/.test(name)) continue;
      for (const query of QUERIES) {
        const p = queryOf(query).whole;
        const sensitive = query !== query.toLowerCase();
        const text = sensitive ? name : name.toLowerCase();
        const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
        const orig = Uint8Array.from(name, (c) => c.charCodeAt(0));
        const score = alignBytes(bytes, orig, 0, name.length, p.codes);
        if (score < 0) continue;
        const starts = startMaskOf(name, 0, name.length, charBit);
        const adjacent = gapsInBytes(bytes, orig, 0, bytes.length, p);
        const atStart = name.toLowerCase().charCodeAt(0) === p.first;
        expect({ name, query, atLeast: boundInBytes(p, atStart, starts, adjacent) >= score }).toEqual({ name, query, atLeast: true });
      }
    }
  });

  test("counts the characters between a pair and the bonuses of the places it can take", () => {
    const cases = [
      // q, then r two characters on, then y beside it: 36 + (13 - 1) + 20, as the alignment scores it.
      ["query", "qry", 68],
      ["config", "cfg", 61],
      ["qxxxxry", "qry", 66],
      // The r of `.rs` starts a word five characters after the q: 13 - 4 + 8; the y stands only beside the r of `query`: 20.
      ["query.rs", "qry", 73],
      // Beside the r that starts a word, the y of a run earns that word's bonus: 36 + 17 + 24.
      ["qxxxx_ry", "qry", 77],
      // A run after a second gap does not carry the first run's bonus: 36 + 19 + 24, then 11 + 20.
      ["qxx_ryxxxab", "qryab", 110],
    ] as const;
    for (const [name, query, want] of cases) {
      const p = queryOf(query).whole;
      const bytes = Uint8Array.from(name, (c) => c.charCodeAt(0));
      const adjacent = gapsInBytes(bytes, bytes, 0, bytes.length, p);
      const bound = boundInBytes(p, true, startMaskOf(name, 0, name.length, charBit), adjacent);
      expect({ name, query, bound }).toEqual({ name, query, bound: want });
      expect({ name, query, score: alignBytes(bytes, bytes, 0, bytes.length, p.codes) <= bound }).toEqual({ name, query, score: true });
    }
  });
});

describe("a directory part aligned over the directory's names", () => {
  test("scores as aligning it over the directory's path does", () => {
    const paths = ["src/components/header/hd.ts", "src/Comp/HeaderDb.kt", "lib/usr/svc/UserService.ts", "über/Ärger/x.ts", "a/b/c/d/e/f/g.ts", "cfg/loader/Config.json", "top.md", "tests/cmp/p/h.ts"];
    const prep = prepare(paths, new Uint8Array(paths.length));
    orderRows(prep);
    for (const query of ["comp/", "src/", "Comp/", "c/", "usr/svc/", "über/", "ärger/", "Ärger/", "abcdefg/", "a/", "cfg/l/", "s/c/h/", "zz/", "/"]) {
      const q = queryOf(`${query}x`);
      const dir = q.split?.dir;
      if (!dir) throw new Error(`no directory part in ${query}`);
      for (let folder = -1; folder < prep.folders.length; folder++) {
        const orig = prep.folders[folder] ?? "";
        const text = q.sensitive ? orig : (prep.foldersLower[folder] ?? "");
        const want = folder < 0 ? (dir.codes.length === 0 ? 0 : -1e9) : align(text, orig, 0, text.length, dir.codes);
        expect({ query, folder: orig, score: alignFolderPath(prep, folder, dir, q.sensitive) }).toEqual({ query, folder: orig, score: want });
      }
    }
  });
});
