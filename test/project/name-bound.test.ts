import { describe, expect, test } from "bun:test";
import { align, alignBytes, startMaskOf } from "../../src/project/align.ts";
import { alignFolderPath } from "../../src/project/dir-part.ts";
import { boundInName, gapsInBytes, pairsByHash } from "../../src/project/name-bound.ts";
import { orderRows } from "../../src/project/penalty-order.ts";
import { charBit, prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A keystroke turns rows down by the most their basename can score, the pairs of the query's
// characters that stand side by side in it read from its bytes, and aligns a query's directory
// part over the directory's names put together: each must hold for every entry, as scoring it does.

const NAMES = ["config.ts", "query.rs", "queue-entry.ee", "a.b.c.ts", "book", "cfg.json", "configLoader.go", "user.rs", "usr-svc.ts", "UserService.kt", "query_builder.py", "qry.md", "header.tsx", "hdr", "HeaderDb.kt", "a", "aa.b", "x2y", "über-ärger.ts", "CfGlDr.ts", "ldr.cfg"];
const QUERIES = ["cfg", "usr", "qry", "qy", "ery", "eee", "oo", "c.ts", "hdr", "cf", "fg", "us", "sr", "er", "on", "cfgldr", "aa", "a.b", "x2", "hd", "Hd", "CfG", "ärg", "ldr.c"];

/** The fewest characters between a `codes[j - 1]` and a later `codes[j]` in `text`, 99 when none follows one. */
function fewestBetween(text: string, codes: Int32Array, j: number): number {
  let fewest = 99;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== codes[j - 1]) continue;
    const next = text.indexOf(String.fromCharCode(codes[j] ?? 0), i + 1);
    if (next >= 0) fewest = Math.min(fewest, next - i - 1);
  }
  return fewest;
}

/** Whether `codes[j - 1]` and `codes[j]` stand side by side in `text`. */
function sideBySide(text: string, codes: Int32Array, j: number): boolean {
  return text.includes(String.fromCharCode(codes[j - 1] ?? 0, codes[j] ?? 0));
}

describe("a row's bound from its basename's bytes", () => {
  test("finds exactly the pairs that stand side by side, and the fewest characters between the others", () => {
    for (const name of NAMES) {
      if (/[^\x00-\x7f]/.test(name)) continue;
      for (const query of QUERIES) {
        const p = queryOf(query).whole;
        const text = query !== query.toLowerCase() ? name : name.toLowerCase();
        const bytes = Uint8Array.from(`#${text}#`, (c) => c.charCodeAt(0));
        let want = 0;
        for (let j = 1; j < p.codes.length; j++) if (sideBySide(text, p.codes, j)) want |= 1 << j;
        const found = gapsInBytes(bytes, 1, bytes.length - 1, p);
        expect({ name, query, found }).toEqual({ name, query, found: want });
        for (let j = 1; j < p.codes.length; j++) {
          expect({ name, query, j, gap: Math.min(p.gaps[j] ?? 0, 99) }).toEqual({ name, query, j, gap: fewestBetween(text, p.codes, j) });
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
        const adjacent = gapsInBytes(bytes, 0, bytes.length, p);
        const atStart = name.toLowerCase().charCodeAt(0) === p.first;
        expect({ name, query, atLeast: boundInName(p, atStart, starts, adjacent, p.gaps) >= score }).toEqual({ name, query, atLeast: true });
      }
    }
  });

  test("counts each character between a pair that never stands side by side", () => {
    // q, then r two characters on, then y beside it: 36 + (13 - 1) + 20, as the alignment scores it.
    for (const [name, query] of [["query", "qry"], ["config", "cfg"], ["qxxxxry", "qry"]] as const) {
      const p = queryOf(query).whole;
      const bytes = Uint8Array.from(name, (c) => c.charCodeAt(0));
      const score = alignBytes(bytes, bytes, 0, bytes.length, p.codes);
      const adjacent = gapsInBytes(bytes, 0, bytes.length, p);
      const bound = boundInName(p, true, startMaskOf(name, 0, name.length, charBit), adjacent, p.gaps);
      expect({ name, query, bound }).toEqual({ name, query, bound: score });
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
