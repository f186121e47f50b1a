import { describe, expect, test } from "bun:test";
import { align, alignBytes, startMaskOf } from "../../src/project/align.ts";
import { alignFolderPath } from "../../src/project/dir-part.ts";
import { boundInName, pairsByHash, pairsInBytes } from "../../src/project/name-bound.ts";
import { orderRows } from "../../src/project/penalty-order.ts";
import { charBit, prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A keystroke turns rows down by the most their basename can score, the pairs of the query's
// characters that stand side by side in it read from its bytes, and aligns a query's directory
// part over the directory's names put together: each must hold for every entry, as scoring it does.

const NAMES = ["config.ts", "cfg.json", "configLoader.go", "user.rs", "usr-svc.ts", "UserService.kt", "query_builder.py", "qry.md", "header.tsx", "hdr", "HeaderDb.kt", "a", "aa.b", "x2y", "über-ärger.ts", "CfGlDr.ts", "ldr.cfg"];
const QUERIES = ["cfg", "usr", "qry", "hdr", "cf", "fg", "us", "sr", "er", "on", "cfgldr", "aa", "a.b", "x2", "hd", "Hd", "CfG", "ärg", "ldr.c"];

/** Whether `codes[j - 1]` and `codes[j]` stand side by side in `text`. */
function sideBySide(text: string, codes: Int32Array, j: number): boolean {
  return text.includes(String.fromCharCode(codes[j - 1] ?? 0, codes[j] ?? 0));
}

describe("a row's bound from its basename's bytes", () => {
  test("finds exactly the pairs that stand side by side, among those asked for", () => {
    for (const name of NAMES) {
      if (/[^\x00-\x7f]/.test(name)) continue;
      for (const query of QUERIES) {
        const p = queryOf(query).whole;
        const text = query !== query.toLowerCase() ? name : name.toLowerCase();
        const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
        const every = (1 << p.codes.length) - 2;
        for (const asked of [every, every & 0b1010, every & 0b0100]) {
          let want = 0;
          for (let j = 1; j < p.codes.length; j++) if ((asked & (1 << j)) !== 0 && sideBySide(text, p.codes, j)) want |= 1 << j;
          expect({ name, query, asked, found: pairsInBytes(bytes, 0, bytes.length, p, asked) }).toEqual({ name, query, asked, found: want });
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
        const score = alignBytes(bytes, Uint8Array.from(name, (c) => c.charCodeAt(0)), 0, name.length, p.codes);
        if (score < 0) continue;
        const starts = startMaskOf(name, 0, name.length, charBit);
        const adjacent = pairsInBytes(bytes, 0, bytes.length, p, pairsByHash(-1, p));
        const atStart = name.toLowerCase().charCodeAt(0) === p.first;
        expect({ name, query, atLeast: boundInName(p, atStart, starts, adjacent) >= score }).toEqual({ name, query, atLeast: true });
      }
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
