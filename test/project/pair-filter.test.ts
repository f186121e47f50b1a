import { describe, expect, test } from "bun:test";
import { align } from "../../src/project/align.ts";
import { boundInName, pairsBy64, pairsByHash } from "../../src/project/name-bound.ts";
import { orderRows } from "../../src/project/penalty-order.ts";
import { lowercase, prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";
import { FIRST, FIRST_CHAR, PAIRS, STARTS, STRIDE } from "../../src/project/rows.ts";

// A keystroke turns a row down, without reading its basename, by the pairs of the query's characters
// its two filters (32 hashed bits, then 64 more) say may stand side by side: a pair that does must
// pass both, or a match would be lost.

const NAMES = ["config.go", "CoreForm.go", "CfGlDr.ts", "query-reader.ts", "QueryRecord.kt", "usr_svc.py", "UserService.kt", "über-ärger.ts", "ÄRGER.md", "hdr.h", "a", "x_y-Z.q", "İcfg.ts"];
const QUERIES = ["cfg", "CfG", "qry", "usr", "hdr", "on", "fg", "ärg", "rg", "xyz", "ab", "config", "qRy", "ts", "g.t"];

/** Deterministic names over a small alphabet, so that pairs fall in every bit of both filters. */
function generated(count: number): string[] {
  const alphabet = "abcdefgqryuszABCFGQR_.-";
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 8;
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + (next() % 14) }, () => alphabet[next() % alphabet.length]).join(""));
}

describe("a row's pairs of characters by its filters", () => {
  test("keep every pair that stands side by side, and the bound from them is never below the basename's score", () => {
    const names = [...NAMES, ...generated(1500)];
    const paths = names.map((name, i) => `d${i % 7}/${name}`);
    const prep = prepare(paths, new Uint8Array(paths.length));
    const rows = orderRows(prep);
    const queries = [...QUERIES, ...generated(60).filter((q) => q.length > 1)];
    for (let row = 0; row < paths.length; row++) {
      const path = paths[rows.idOf[row] ?? 0] ?? "";
      const base = path.indexOf("/") + 1;
      const lower = lowercase(path);
      for (const query of queries) {
        const q = queryOf(query);
        const p = q.whole;
        const at = row * STRIDE;
        const hashed = pairsByHash(rows.packed[at + PAIRS] ?? 0, p);
        const adjacent = pairsBy64(rows.pairs64[2 * row] ?? 0, rows.pairs64[2 * row + 1] ?? 0, p, hashed);
        let want = 0;
        for (let j = 1; j < p.codes.length; j++) if (lower.includes(lowercase(query.slice(j - 1, j + 1)), base)) want |= 1 << j;
        expect({ path, query, kept: adjacent & want }).toEqual({ path, query, kept: want });
        const text = q.sensitive ? path : lower;
        const score = align(text, path, base, path.length, p.codes);
        if (score < 0) continue;
        const atStart = ((rows.packed[at + FIRST] ?? 0) & FIRST_CHAR) === p.first;
        const bound = boundInName(p, atStart, rows.packed[at + STARTS] ?? 0, adjacent);
        expect({ path, query, atLeast: bound >= score }).toEqual({ path, query, atLeast: true });
      }
    }
  });
});
