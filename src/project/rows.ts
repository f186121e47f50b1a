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
  /** PER_BASENAME_CHAR × the basename's length + PER_PATH_CHAR × the path's: never decreasing. */
  readonly penalty: Float64Array;
  readonly dirs: Uint8Array;
  readonly base: Int32Array;
  readonly length: Int32Array;
  readonly baseFirst: Uint16Array;
  readonly mask: Int32Array;
  readonly baseMask: Int32Array;
  readonly startMask: Int32Array;
  readonly upperMask: Int32Array;
  readonly folderOf: Int32Array;
  /**
   * Each basename's bytes lowercased (`names`) and as written (`namesOrig`), row after row, from
   * nameAt[row] to nameAt[row + 1]: a pass reads them in its own order instead of the scattered
   * strings. `wide` marks a basename with a character past ASCII, left out (the strings serve).
   */
  readonly nameAt: Int32Array;
  readonly names: Uint8Array;
  readonly namesOrig: Uint8Array;
  readonly wide: Uint8Array;
  /** A bit (pairBit) for each two characters side by side in the basename, lowercased; every bit for a wide one. */
  readonly pairs: Int32Array;
  /** Which rows hold each character (see char-bits.ts). */
  readonly bits: CharBits;
};
