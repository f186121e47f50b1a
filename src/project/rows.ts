import type { CharBits } from "./char-bits.ts";

/**
 * The prepared list's per-row fields again, ordered by what length costs a row (its penalty),
 * cheapest first. A search reads its candidates in this order, so that once the best a row could
 * score, less its penalty, falls below the heap's floor, no row after it can get in either, and
 * the pass stops there instead of visiting every candidate. A row here is a position in this
 * order; `idOf` gives its index in the prepared list (its path, its id in the results).
 */
export type Rows = {
  readonly idOf: Int32Array;
  /**
   * What the first two passes read of a row, STRIDE numbers a row side by side (the fields at
   * the offsets below): a row they read is then one cache line, where ten arrays were ten, since
   * the rows a pass reads lie scattered over the list.
   */
  readonly packed: Int32Array;
  readonly dirs: Uint8Array;
  readonly base: Int32Array;
  readonly length: Int32Array;
  readonly baseFirst: Uint16Array;
  readonly mask: Int32Array;
  readonly baseMask: Int32Array;
  readonly upperMask: Int32Array;
  readonly folderOf: Int32Array;
  /**
   * A second filter of the pairs of characters side by side in each basename (lowercased), two
   * words a row (see pairBits64; every bit for a wide one): read only for a row that PAIRS let
   * through, where it is a read of 8 bytes instead of the basename's.
   */
  readonly pairs64: Int32Array;
  /**
   * Each basename's bytes lowercased (`names`) and as written (`namesOrig`), row after row, from
   * the row's NAME_AT for its basename's length: a pass reads them in its own order instead of the
   * scattered strings. WIDE marks a basename with a character past ASCII, left out (the strings serve).
   */
  readonly names: Uint8Array;
  readonly namesOrig: Uint8Array;
  /** Which rows hold each character (see char-bits.ts). */
  readonly bits: CharBits;
};

/** Numbers a row in Rows.packed, and where each field lies among them. */
export const STRIDE = 8;
export const BASE = 0;
export const LENGTH = 1;
/** The basename's first character (lowercased) in the low 16 bits, and the flags above. */
export const FIRST = 2;
export const FIRST_CHAR = 0xffff;
export const IS_DIR_SHIFT = 16;
export const IS_DIR = 1 << IS_DIR_SHIFT;
export const WIDE = 1 << 17;
/**
 * Where the basename's second character (lowercased; 0 when it has one) lies in the same field, 8
 * bits, for a basename within ASCII: a row whose second character differs from the query's starts
 * with neither the query nor the same two characters, known without a read of its bytes.
 */
export const SECOND_SHIFT = 18;
export const BASE_MASK = 3;
/** The characters that start a word in the basename (see startMaskOf): bounds its best score. */
export const STARTS = 4;
/** A bit (pairBit) for each two characters side by side in the basename, lowercased; every bit for a wide one. */
export const PAIRS = 5;
export const NAME_AT = 6;
export const FOLDER = 7;

/** How many rows of a pass are touched ahead of being judged (see touchRows). */
export const TOUCH_BLOCK = 64;

/**
 * Reads a number of each row of list[from, to) in packed and pairs64, which lie scattered over
 * the memory: reads with nothing between them go out together (the processor has many on the way
 * at once), where the judging of a row, a few hundred instructions, kept the next row's read from
 * starting before it was done, one memory wait a row. The rows are then in the cache when judged.
 */
export function touchRows(list: Int32Array, from: number, to: number, packed: Int32Array, pairs64: Int32Array): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const row = list[i] ?? 0;
    sum ^= (packed[row * STRIDE] ?? 0) ^ (pairs64[2 * row] ?? 0);
  }
  return sum;
}
