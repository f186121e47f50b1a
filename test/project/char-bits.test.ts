import { describe, expect, test } from "bun:test";
import { BitRows, type Chunk, rowsOfBits } from "../../src/project/char-bits.ts";
import { sortAny, sortOut } from "../../src/project/kept-rows.ts";
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
    for (const query of ["c", "comp", "comp/", "comp/h", "usr/svc", "R", "Qry", "ü", "rdm", "cfg/", "/", "x/y/z", "hd", "zz"]) {
      const q = queryOf(query);
      const name = q.split ? q.split.name : q.whole;
      const test = { wholeMask: q.whole.mask, upper: q.upper, nameFirst: name.first, nameMask: name.mask, nameless: name.codes.length === 0, fits: null };
      const read = sortOut(rows, test, [every]);
      const byBits = sortAny(rows, test, null);
      expect({ query, first: [...byBits.first], later: [...byBits.later] }).toEqual({ query, first: [...read.first], later: [...read.later] });
      // The last pass's bitset may hold rows without the query's uppercase letters: the pass checks each.
      const upperOk = (row: number) => ((rows.upperMask[row] ?? 0) & q.upper) === q.upper;
      expect({ query, last: asList(byBits.last).filter(upperOk) }).toEqual({ query, last: asList(read.last) });
    }
  });

  test("a few sources are read, many or a bitset sorted by the bitsets, to the same passes", () => {
    const q = queryOf("c");
    const test = { wholeMask: q.whole.mask, upper: 0, nameFirst: q.whole.first, nameMask: q.whole.mask, nameless: false, fits: null };
    const few = sortAny(rows, test, [Int32Array.of(0)]);
    expect(few.last.every((chunk) => !(chunk instanceof BitRows))).toBe(true);
    const whole = sortAny(rows, test, [new BitRows(new Int32Array(1))]);
    expect([...whole.first]).toEqual([...sortOut(rows, test, [every]).first]);
  });
});
