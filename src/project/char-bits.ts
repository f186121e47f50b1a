import { charBit } from "./char-bit.ts";

/**
 * For each of the 31 character bits (see char-bit.ts), which rows hold it: one bitset of
 * the rows a bit (a row is a position in penalty order, see penalty-order.ts) for the whole path,
 * one for the basename, and one of the directories. A search that would otherwise read every row to
 * sort it into its passes ANDs the bitsets of its query's characters instead (a word covers 32 rows)
 * and reads only the rows that hold them all: a first keystroke, or the one after a `/`, no longer
 * sorts the whole list. About 8 bytes a row.
 */
export type CharBits = {
  /** 32-bit words a bitset. */
  readonly words: number;
  /** Bitset of bit b at [b × words, (b + 1) × words). */
  readonly path: Int32Array;
  readonly base: Int32Array;
  readonly dirs: Int32Array;
  /**
   * Bitset of bit b: the rows whose basename's first character (lowercased) has bit b, so that a
   * sort of every row finds those starting with the query's first character by words, not by a
   * read of each row holding the query (a sort after `c` or `comp/h` at 1 M paths: 300-500 k rows).
   */
  readonly starts: Int32Array;
};

export const CHAR_BITS = 31;

/** The bitsets of rows whose `mask` and `baseMask` hold each bit, and of the rows that are directories. */
export function charBitsOf(mask: Int32Array, baseMask: Int32Array, dirs: Uint8Array, baseFirst: Uint16Array): CharBits {
  const n = mask.length;
  const words = (n + 31) >>> 5;
  const path = new Int32Array(CHAR_BITS * words);
  const base = new Int32Array(CHAR_BITS * words);
  const dirBits = new Int32Array(words);
  const starts = new Int32Array(CHAR_BITS * words);
  for (let row = 0; row < n; row++) {
    const word = row >>> 5;
    const bit = 1 << (row & 31);
    for (let m = mask[row] ?? 0; m !== 0; m &= m - 1) {
      const b = 31 - Math.clz32(m & -m);
      path[b * words + word] = (path[b * words + word] ?? 0) | bit;
    }
    for (let m = baseMask[row] ?? 0; m !== 0; m &= m - 1) {
      const b = 31 - Math.clz32(m & -m);
      base[b * words + word] = (base[b * words + word] ?? 0) | bit;
    }
    if (dirs[row] === 1) dirBits[word] = (dirBits[word] ?? 0) | bit;
    const at = (31 - Math.clz32(charBit(baseFirst[row] ?? 0))) * words + word;
    starts[at] = (starts[at] ?? 0) | bit;
  }
  return { words, path, base, dirs: dirBits, starts };
}

/** The rows (as a bitset) holding every bit of `mask` in `sets` (path or base); every row of `count` for an empty mask. */
export function rowsHolding(bits: CharBits, sets: Int32Array, mask: number, count: number): Int32Array {
  const { words } = bits;
  const out = new Int32Array(words);
  let first = true;
  for (let m = mask; m !== 0; m &= m - 1) {
    const at = (31 - Math.clz32(m & -m)) * words;
    if (first) out.set(sets.subarray(at, at + words));
    else for (let w = 0; w < words; w++) out[w] = (out[w] ?? 0) & (sets[at + w] ?? 0);
    first = false;
  }
  if (first) {
    out.fill(-1);
    if ((count & 31) !== 0) out[words - 1] = (1 << (count & 31)) - 1;
  }
  return out;
}

/** The rows of a bitset, ascending. */
export function rowsOfBits(set: Int32Array): Int32Array {
  let total = 0;
  for (let w = 0; w < set.length; w++) total += popcount(set[w] ?? 0);
  const out = new Int32Array(total);
  let k = 0;
  for (let w = 0; w < set.length; w++) {
    for (let m = set[w] ?? 0; m !== 0; m &= m - 1) out[k++] = (w << 5) | (31 - Math.clz32(m & -m));
  }
  return out;
}

export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/**
 * Rows kept as a bitset rather than a list: the last pass's rows of a search that sorted by the
 * bitsets, handed on unread by most keystrokes, listed only if a search reads them. It may hold
 * rows a list would have left out (those without the query's uppercase letters): the last pass
 * checks each row it reads anyway.
 */
export class BitRows {
  constructor(readonly set: Int32Array) {}
}

/** Rows of one pass: a list ascending, or a bitset. */
export type Chunk = Int32Array | BitRows;
