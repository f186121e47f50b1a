import { BitRows, type Chunk, rowsHolding } from "./char-bits.ts";
import type { Rows } from "./penalty-order.ts";
import { BASE_MASK, FIRST, FIRST_CHAR, IS_DIR_SHIFT, STRIDE } from "./rows.ts";
import { charBit, type Kept, type Prepared } from "./prepared.ts";

/**
 * What a search sorts rows by, from typed arrays alone: the masks of the query's characters and
 * uppercase letters; the first character of its name part (the whole query, or the part after its
 * last `/`) and that part's mask; `nameless` for a query ending in `/` (a directory's name); for a
 * query with `/` and a name part, which directories hold its directory part (`fits`, see
 * dir-part.ts; null for other queries): an entry of another directory matches in neither of the first
 * two passes.
 */
export type RowTest = { wholeMask: number; upper: number; nameFirst: number; nameMask: number; nameless: boolean; fits: Uint8Array | null };

/** The rows of one search's passes, as sortOut leaves them: the last pass's in chunks, each ascending. */
export type Sorted = { first: Int32Array; later: Int32Array; last: Chunk[] };

// Where sortOut writes; reused between searches, copied out at the length found.
let toFirst = new Int32Array(0);
let toLater = new Int32Array(0);
let toLast = new Int32Array(0);

/**
 * Sorts the rows of `sources` holding the query's characters into the three
 * passes: the basename holds the name part's characters and starts with the first (`first`); it
 * holds them, or for a query ending in `/` the entry is a directory (`later`); the rest (`last`). Each comes out in ascending order (several sources are merged first), which is the
 * order a pass stops early in. Without a branch on the data: which way a row goes is as good as
 * random to the processor, and a mispredicted branch a row cost several times the rest of the scan.
 */
export function sortOut(rows: Rows, test: RowTest, sources: readonly Int32Array[]): Sorted {
  const chunks = sources.filter((chunk) => chunk.length > 0);
  const total = chunks.reduce((n, chunk) => n + chunk.length, 0);
  grow(total);
  const counts = { f: 0, l: 0, r: 0 };
  const merged = chunks.length > 1 ? mergeRows(chunks, total) : (chunks[0] ?? new Int32Array(0));
  sortRows(rows, test, merged, counts);
  return fitted(rows, test, counts, [toLast.slice(0, counts.r)]);
}

/**
 * Sorts the rows of `sources` (every row when null) as {@link sortOut} does, or, when they are
 * many, by the bitsets of the query's characters (see char-bits.ts): the sources made a bitset,
 * ANDed with the characters' bitsets, and only the rows holding them all read (in ascending order,
 * where reading rows one by one from a list jumps about the memory); the last pass's rows then
 * come out as a bitset.
 */
export function sortAny(rows: Rows, test: RowTest, sources: readonly Chunk[] | null): Sorted {
  if (!sources) return sortByBits(rows, test, null);
  const lists = sources.filter((chunk): chunk is Int32Array => !(chunk instanceof BitRows));
  const total = lists.reduce((n, chunk) => n + chunk.length, 0);
  if (lists.length === sources.length && total <= rows.idOf.length >>> LIST_SHARE) return sortOut(rows, test, lists);
  return sortByBits(rows, test, bitsOf(sources, rows.bits.words));
}

/**
 * {@link sortAny}, the later pass's rows left a bitset when sorted by the bitsets (`later`): the
 * rows whose basename holds the name part and does not start with its first character, their
 * directory and uppercase letters not yet looked at. A search reads the later pass only when the
 * first leaves its floor low enough, and most keystrokes hand those rows on unread: listing them
 * (half a million rows after `i` at 1 M paths) cost more than the rest of the sort. {@link listLater}
 * lists them when a pass reads them.
 */
export function sortAnyLazy(rows: Rows, test: RowTest, sources: readonly Chunk[] | null): { first: Int32Array; later: Chunk; last: Chunk[] } {
  if (sources) {
    const lists = sources.filter((chunk): chunk is Int32Array => !(chunk instanceof BitRows));
    const total = lists.reduce((n, chunk) => n + chunk.length, 0);
    if (lists.length === sources.length && total <= rows.idOf.length >>> LIST_SHARE) return sortOut(rows, test, lists);
  }
  return sortByBits(rows, test, sources ? bitsOf(sources, rows.bits.words) : null, true);
}

/** The later pass's rows of {@link sortAnyLazy} as a list, and those that turn out to belong to the last pass. */
export function listLater(rows: Rows, test: RowTest, later: Chunk): { later: Int32Array; last: Chunk[] } {
  if (!(later instanceof BitRows)) return { later, last: [] };
  return sortByBits(rows, test, later.set, false);
}

/** Up to this share of the list (1 / 2^n), reading the rows of a list costs less than the bitsets. */
const LIST_SHARE = 6;

/** The rows of `chunks` as one bitset. */
function bitsOf(chunks: readonly Chunk[], words: number): Int32Array {
  const set = new Int32Array(words);
  for (const chunk of chunks) {
    if (chunk instanceof BitRows) {
      for (let w = 0; w < words; w++) set[w] = (set[w] ?? 0) | (chunk.set[w] ?? 0);
      continue;
    }
    for (let i = 0; i < chunk.length; i++) {
      const row = chunk[i] ?? 0;
      set[row >>> 5] = (set[row >>> 5] ?? 0) | (1 << (row & 31));
    }
  }
  return set;
}

function grow(total: number): void {
  if (toFirst.length >= total) return;
  toFirst = new Int32Array(total);
  toLater = new Int32Array(total);
  toLast = new Int32Array(total);
}

/** The sorted rows, those of the first two passes whose directory does not fit the query's directory part sent to the last. */
function fitted(rows: Rows, test: RowTest, counts: { f: number; l: number }, last: Chunk[]): Sorted {
  if (test.fits) {
    const first = keepFitting(rows, test.fits, toFirst, counts.f);
    const later = keepFitting(rows, test.fits, toLater, counts.l);
    counts.f = first.kept;
    counts.l = later.kept;
    last.push(first.misfits, later.misfits);
  }
  return { first: toFirst.slice(0, counts.f), later: toLater.slice(0, counts.l), last };
}

/**
 * The rows (of `within`, else every row) holding the query's characters into the passes, by the
 * bitsets: the first two listed, the last a bitset; with `lazy`, the later pass's rows left a
 * bitset unchecked (see sortAnyLazy).
 */
function sortByBits(rows: Rows, test: RowTest, within: Int32Array | null, lazy: true): { first: Int32Array; later: BitRows; last: Chunk[] };
function sortByBits(rows: Rows, test: RowTest, within: Int32Array | null, lazy?: false): Sorted;
function sortByBits(rows: Rows, test: RowTest, within: Int32Array | null, lazy = false): Sorted | { first: Int32Array; later: BitRows; last: Chunk[] } {
  const n = rows.idOf.length;
  const { bits, baseFirst, folderOf, upperMask } = rows;
  const held = rowsHolding(bits, bits.path, test.wholeMask, n);
  if (within) for (let w = 0; w < held.length; w++) held[w] = (held[w] ?? 0) & (within[w] ?? 0);
  const inBase = test.nameless ? bits.dirs : rowsHolding(bits, bits.base, test.nameMask, n);
  const first = test.nameless ? -1 : test.nameFirst;
  const upper = test.upper;
  // Null for a query without a directory part: every directory fits.
  const fits = test.fits;
  grow(n);
  if (lazy) return sortFirstByBits(rows, test, held, inBase, first);
  const [outFirst, outLater] = [toFirst, toLater];
  let f = 0;
  let l = 0;
  for (let w = 0; w < held.length; w++) {
    const h = held[w] ?? 0;
    if (h === 0) continue;
    const both = h & (inBase[w] ?? 0);
    let misfits = 0;
    for (let m = both; m !== 0; m &= m - 1) {
      const bit = m & -m;
      const row = (w << 5) | (31 - Math.clz32(bit));
      const ok = upper === 0 ? 1 : isZero(((upperMask[row] ?? 0) & upper) ^ upper);
      // A row whose directory does not hold the query's directory part goes to the last pass.
      const fit = fits ? (fits[(folderOf[row] ?? 0) + 1] ?? 0) : 1;
      misfits |= bit & -(ok & (fit ^ 1));
      const isFirst = ok & fit & isZero((baseFirst[row] ?? 0) ^ first);
      outFirst[f] = row;
      f += isFirst;
      outLater[l] = row;
      l += ok & fit & (isFirst ^ 1);
    }
    held[w] = (h & ~both) | misfits;
  }
  return { first: toFirst.slice(0, f), later: toLater.slice(0, l), last: [new BitRows(held)] };
}


/**
 * {@link sortByBits}'s loop, the later pass's rows left a bitset: only a row whose basename starts
 * with the name part's first character has its directory and uppercase letters looked at.
 */
function sortFirstByBits(rows: Rows, test: RowTest, held: Int32Array, inBase: Int32Array, first: number): { first: Int32Array; later: BitRows; last: Chunk[] } {
  const { baseFirst, folderOf, upperMask, bits } = rows;
  const { upper, fits } = test;
  const later = new Int32Array(held.length);
  // The rows whose basename's first character shares its bit with `first` (none for a query ending in `/`).
  const startsAt = first < 0 ? -1 : (31 - Math.clz32(charBit(first))) * bits.words;
  const outFirst = toFirst;
  let f = 0;
  for (let w = 0; w < held.length; w++) {
    const h = held[w] ?? 0;
    if (h === 0) continue;
    const both = h & (inBase[w] ?? 0);
    let starting = 0;
    let misfits = 0;
    for (let m = startsAt < 0 ? 0 : both & (bits.starts[startsAt + w] ?? 0); m !== 0; m &= m - 1) {
      const bit = m & -m;
      const row = (w << 5) | (31 - Math.clz32(bit));
      if ((baseFirst[row] ?? 0) !== first) continue;
      starting |= bit;
      const ok = upper === 0 ? 1 : isZero(((upperMask[row] ?? 0) & upper) ^ upper);
      const fit = fits ? (fits[(folderOf[row] ?? 0) + 1] ?? 0) : 1;
      outFirst[f] = row;
      f += ok & fit;
      misfits |= bit & -((ok & fit) ^ 1);
    }
    later[w] = both & ~starting;
    held[w] = (h & ~both) | misfits;
  }
  return { first: toFirst.slice(0, f), later: new BitRows(later), last: [new BitRows(held)] };
}

/**
 * The rows of disjoint ascending chunks in one ascending list: put together and sorted (they are
 * few beside the list: marking them in a table of every row and gathering them in a scan of it cost
 * a 1 MB table and a million steps a keystroke at 1 M paths).
 */
function mergeRows(chunks: readonly Int32Array[], total: number): Int32Array {
  const out = new Int32Array(total);
  let k = 0;
  for (const chunk of chunks) {
    out.set(chunk, k);
    k += chunk.length;
  }
  return out.sort();
}

function sortRows(table: Rows, test: RowTest, rows: Int32Array, counts: { f: number; l: number; r: number }): void {
  // The basename's fields from the row's packed numbers, which the pass reads next: one place in memory where three arrays were three.
  const { mask, upperMask, packed } = table;
  const { wholeMask, upper, nameFirst } = test;
  const nameless = test.nameless ? 1 : 0;
  const nameMask = test.nameless ? 0 : test.nameMask;
  // Never a basename's first character when there is no name part.
  const first = test.nameless ? -1 : nameFirst;
  // Locals: the loop does not reload module variables.
  const [outFirst, outLater, outLast] = [toFirst, toLater, toLast];
  let { f, l, r } = counts;
  for (let s = 0; s < rows.length; s++) {
    const id = rows[s] ?? 0;
    const held = isZero((((mask[id] ?? 0) & wholeMask) ^ wholeMask) | (((upperMask[id] ?? 0) & upper) ^ upper));
    const flags = packed[id * STRIDE + FIRST] ?? 0;
    const isDir = (flags >>> IS_DIR_SHIFT) & 1;
    const inBase = isZero((((packed[id * STRIDE + BASE_MASK] ?? 0) & nameMask) ^ nameMask) | ((isDir ^ 1) & nameless));
    const isFirst = held & inBase & isZero((flags & FIRST_CHAR) ^ first);
    const isLater = held & (isFirst ^ 1) & inBase;
    outFirst[f] = id;
    f += isFirst;
    outLater[l] = id;
    l += isLater;
    outLast[r] = id;
    r += held - isFirst - isLater;
  }
  counts.f = f;
  counts.l = l;
  counts.r = r;
}

/**
 * Keeps, of the first `count` of `list`, the rows whose directory `fits` (in place, in order) and
 * gives the others apart: after the sort, so that a query without a directory part pays nothing
 * for it, and over the first two passes alone, which are few beside the whole list.
 */
function keepFitting(table: Rows, fits: Uint8Array, list: Int32Array, count: number): { kept: number; misfits: Int32Array } {
  const { folderOf } = table;
  const misfits = new Int32Array(count);
  let k = 0;
  let m = 0;
  for (let i = 0; i < count; i++) {
    const id = list[i] ?? 0;
    const fit = fits[(folderOf[id] ?? -1) + 1] ?? 0;
    list[k] = id;
    k += fit;
    misfits[m] = id;
    m += fit ^ 1;
  }
  return { kept: k, misfits: misfits.subarray(0, m) };
}

/** 1 when `x` is 0, else 0, without a branch. */
function isZero(x: number): number {
  return ((x | -x) >>> 31) ^ 1;
}

const TRAIL_MAX = 64;

/** The rows kept by the longest remembered query that `query` extends (and that query), or null for all. */
export function narrowFrom(prep: Prepared, query: string): { query: string; kept: Kept } | null {
  while (prep.trail.length > 0) {
    const last = prep.trail[prep.trail.length - 1];
    if (last && query.startsWith(last.query)) return last;
    prep.trail.pop();
  }
  return null;
}

/**
 * Whether `query`, typed after `before`, sorts rows into the same passes, so that a pass may hand
 * on its rows unread: the same name part's first character (no `/` typed since, and `before` did
 * not end in one). A row whose basename does not start with that character, or does not hold the
 * name part's characters, still does not once more characters are typed.
 */
export function samePasses(before: string, query: string): boolean {
  return !before.endsWith("/") && before.lastIndexOf("/") === query.lastIndexOf("/");
}

/** Remembers the rows `query` kept, for the queries typed after it. */
export function remember(prep: Prepared, query: string, kept: Kept): void {
  const last = prep.trail[prep.trail.length - 1];
  if (last?.query === query) return;
  if (prep.trail.length >= TRAIL_MAX) prep.trail.shift();
  prep.trail.push({ query, kept });
}
