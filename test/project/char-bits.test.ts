import { describe, expect, test } from "bun:test";
import { BitRows, type Chunk, rowsOfBits } from "../../src/project/char-bits.ts";
import { dirPartOf } from "../../src/project/dir-part.ts";
import { listLater, sortAny, sortAnyLazy, sortOut } from "../../src/project/kept-rows.ts";
import { orderRows } from "../../src/project/penalty-order.ts";
import { prepare } from "../../src/project/prepared.ts";
import { queryOf } from "../../src/project/query-plan.ts";

// A search that would read every row to sort it into its passes ANDs the bitsets of its query's
// characters instead: it must sort the rows exactly as reading each of them does.

const paths = [
  "src/components/Header.tsx",
  "src/components/header/hd.ts",
  "src/comp/c.ts",
  "lib/usr/svc/UserService.ts",
  "lib/usr/svc",
  "lib/usr",
  "README.md",
  "docs/readme-old.md",
  "cfg/loader.json",
  "cfg",
  "tests/cmp/p/h.ts",
  "über/ärger.ts",
  "x/y/z/q.py",
  "Qry/query_builder.go",
  // Its basename starts with the name part of `comp/h`, its directory does not hold `comp`.
  "lib/hcomp.ts",
];
const dirs = Uint8Array.from(paths, (path) => (path.includes(".") ? 0 : 1));

function asList(chunks: readonly Chunk[]): number[] {
  return chunks.flatMap((chunk) => [...(chunk instanceof BitRows ? rowsOfBits(chunk.set) : chunk)]).sort((a, b) => a - b);
}

describe("the rows' character bitsets", () => {
  const prep = prepare(paths, dirs);
  const rows = orderRows(prep);
  const every = Int32Array.from({ length: rows.idOf.length }, (_, row) => row);

  test("sort every row into the passes as reading each row does", () => {
    for (const query of ["c", "comp", "comp/", "comp/h", "usr/svc", "lib/c", "src/h", "Comp/H", "R", "Qry", "ü", "rdm", "cfg/", "/", "x/y/z", "hd", "zz"]) {
      const q = queryOf(query);
      const name = q.split ? q.split.name : q.whole;
      const nameless = name.codes.length === 0;
      // A query with a directory part and a name: the rows of directories not holding the part go to the last pass.
      const fits = q.split && !nameless ? dirPartOf(prep, q.split.dir, q.sensitive).fits : null;
      const test = { wholeMask: q.whole.mask, upper: q.upper, nameFirst: name.first, nameMask: name.mask, nameless, fits };
      const read = sortOut(rows, test, [every]);
      const byBits = sortAny(rows, test, null);
      expect({ query, first: [...byBits.first], later: [...byBits.later] }).toEqual({ query, first: [...read.first], later: [...read.later] });
      // The last pass's bitset may hold rows without the query's uppercase letters: the pass checks each.
      const upperOk = (row: number) => ((rows.upperMask[row] ?? 0) & q.upper) === q.upper;
      expect({ query, last: asList(byBits.last).filter(upperOk) }).toEqual({ query, last: asList(read.last) });
    }
  });

  test("leave the later pass's rows a bitset that lists them as reading each row does", () => {
    const odd = Int32Array.from(every.filter((row) => row % 2 === 1));
    for (const query of ["c", "comp", "comp/", "comp/h", "usr/svc", "lib/c", "src/h", "Comp/H", "R", "Qry", "ü", "rdm", "cfg/", "/", "x/y/z", "hd", "zz", "u", "h"]) {
      const q = queryOf(query);
      const name = q.split ? q.split.name : q.whole;
      const nameless = name.codes.length === 0;
      const fits = q.split && !nameless ? dirPartOf(prep, q.split.dir, q.sensitive).fits : null;
      const test = { wholeMask: q.whole.mask, upper: q.upper, nameFirst: name.first, nameMask: name.mask, nameless, fits };
      const upperOk = (row: number) => ((rows.upperMask[row] ?? 0) & q.upper) === q.upper;
      for (const [sources, given] of [[null, [every]], [[odd, new BitRows(new Int32Array(rows.bits.words).fill(-1))], [every]]] as const) {
        const read = sortOut(rows, test, given);
        const lazy = sortAnyLazy(rows, test, sources);
        const listed = listLater(rows, test, lazy.later);
        expect({ query, first: [...lazy.first], later: [...listed.later] }).toEqual({ query, first: [...read.first], later: [...read.later] });
        expect({ query, last: asList([...lazy.last, ...listed.last]).filter(upperOk) }).toEqual({ query, last: asList(read.last) });
      }
    }
  });

  test("sort the rows of given chunks, lists or bitsets, as reading each of their rows does", () => {
    const odd = Int32Array.from(every.filter((row) => row % 2 === 1));
    // Some of the rows only: the others must stay out.
    const fourth = (row: number) => row % 4 === 0;
    const even = new Int32Array(every.length);
    for (const row of every) if (fourth(row)) even[row >>> 5] = (even[row >>> 5] ?? 0) | (1 << (row & 31));
    const evenRows = Int32Array.from(every.filter(fourth));
    for (const query of ["c", "u", "comp/h", "R", "cfg/"]) {
      const q = queryOf(query);
      const name = q.split ? q.split.name : q.whole;
      const test = { wholeMask: q.whole.mask, upper: q.upper, nameFirst: name.first, nameMask: name.mask, nameless: name.codes.length === 0, fits: null };
      const byBits = sortAny(rows, test, [odd, new BitRows(even.subarray(0, (every.length + 31) >>> 5))]);
      const read = sortOut(rows, test, [odd, evenRows]);
      expect({ query, first: [...byBits.first], later: [...byBits.later] }).toEqual({ query, first: [...read.first], later: [...read.later] });
      const upperOk = (row: number) => ((rows.upperMask[row] ?? 0) & q.upper) === q.upper;
      expect({ query, last: asList(byBits.last).filter(upperOk) }).toEqual({ query, last: asList(read.last) });
    }
  });
});
