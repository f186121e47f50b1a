import { startMaskOf } from "./align.ts";
import { charBitsOf } from "./char-bits.ts";
import { charBit, type Prepared } from "./prepared.ts";
import { BASE, BASE_MASK, FIRST, FOLDER, IS_DIR, LENGTH, NAME_AT, PAIRS, type Rows, SECOND_SHIFT, STARTS, STRIDE, WIDE } from "./rows.ts";

export type { Rows } from "./rows.ts";

/** Within a kind of match, what a longer basename and a longer path cost a row (see fuzzy.ts). */
export const PER_BASENAME_CHAR = 0.5;
export const PER_PATH_CHAR = 0.05;


/** One of 32 bits for two (lowercase) characters side by side: a hash, so a bit set may be another pair's. */
export function pairBit(a: number, b: number): number {
  return 1 << (Math.imul(a * 131 + b, 0x9e3779b1) >>> 27);
}

/**
 * Two of 64 bits (in two 32-bit words) for two characters side by side, by another hash than
 * pairBit's: a row whose 32 bits say yes for a pair that is not there (a third of the time, and
 * always for some: `fg` shares its bit with `on`) is most often told apart here, without a read of
 * its bytes. `word` 0 gives the low word's bits, 1 the high word's.
 */
export function pairBits64(a: number, b: number, word: number): number {
  let h = Math.imul((a << 16) ^ b, 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 15), 0x297a2d39);
  const one = h >>> 26;
  const two = (h >>> 20) & 63;
  return ((one >>> 5) === word ? 1 << (one & 31) : 0) | ((two >>> 5) === word ? 1 << (two & 31) : 0);
}

/** The rows of `prep` by penalty (a counting sort on 10 × basename + path length, stable). */
export function orderRows(prep: Prepared): Rows {
  const n = prep.count;
  const { base, length } = prep;
  const keys = new Int32Array(n);
  let most = 0;
  for (let i = 0; i < n; i++) {
    const len = length[i] ?? 0;
    const key = 10 * (len - (base[i] ?? 0)) + len;
    keys[i] = key;
    if (key > most) most = key;
  }
  const starts = new Int32Array(most + 2);
  for (let i = 0; i < n; i++) {
    const next = (keys[i] ?? 0) + 1;
    starts[next] = (starts[next] ?? 0) + 1;
  }
  for (let k = 1; k < starts.length; k++) starts[k] = (starts[k] ?? 0) + (starts[k - 1] ?? 0);
  const idOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const key = keys[i] ?? 0;
    const at = starts[key] ?? 0;
    idOf[at] = i;
    starts[key] = at + 1;
  }
  const pick = <T extends Uint8Array | Uint16Array | Int32Array>(from: T, to: T): T => {
    for (let row = 0; row < n; row++) to[row] = from[idOf[row] ?? 0] ?? 0;
    return to;
  };
  const rows = {
    idOf,
    dirs: pick(prep.dirs, new Uint8Array(n)),
    base: pick(prep.base, new Int32Array(n)),
    length: pick(prep.length, new Int32Array(n)),
    baseFirst: pick(prep.baseFirst, new Uint16Array(n)),
    mask: pick(prep.mask, new Int32Array(n)),
    baseMask: pick(prep.baseMask, new Int32Array(n)),
    upperMask: pick(prep.upperMask, new Int32Array(n)),
    folderOf: pick(prep.folderOf, new Int32Array(n)),
  };
  let bytes = 0;
  for (let row = 0; row < n; row++) bytes += (rows.length[row] ?? 0) - (rows.base[row] ?? 0);
  const { nameAt, names, namesOrig, wide, pairs, pairs64, wordStarts } = namesOf(prep, rows, bytes);
  const packed = new Int32Array(n * STRIDE);
  for (let row = 0; row < n; row++) {
    const at = row * STRIDE;
    packed[at + BASE] = rows.base[row] ?? 0;
    packed[at + LENGTH] = rows.length[row] ?? 0;
    const nameLength = (rows.length[row] ?? 0) - (rows.base[row] ?? 0);
    const second = wide[row] === 1 || nameLength < 2 ? 0 : (names[(nameAt[row] ?? 0) + 1] ?? 0);
    packed[at + FIRST] = (rows.baseFirst[row] ?? 0) | (rows.dirs[row] === 1 ? IS_DIR : 0) | (wide[row] === 1 ? WIDE : 0) | (second << SECOND_SHIFT);
    packed[at + BASE_MASK] = rows.baseMask[row] ?? 0;
    packed[at + STARTS] = wordStarts[row] ?? 0;
    packed[at + PAIRS] = pairs[row] ?? 0;
    packed[at + NAME_AT] = nameAt[row] ?? 0;
    packed[at + FOLDER] = rows.folderOf[row] ?? 0;
  }
  return { ...rows, packed, pairs64, names, namesOrig, bits: charBitsOf(rows.mask, rows.baseMask, rows.dirs, rows.baseFirst) };
}

/** Groups of basenames by first character: one for each ASCII code, one for the rest. */
const NAME_GROUPS = 129;
const nameGroup = (first: number): number => (first < 128 ? first : 128);

/** The basenames' bytes, grouped by their first character and in row order within a group: read in the list's own order (its strings lie in memory about that way), written where each row's go. */
function namesOf(prep: Prepared, rows: { idOf: Int32Array; base: Int32Array; length: Int32Array; baseFirst: Uint16Array }, bytes: number) {
  const n = rows.idOf.length;
  const nameAt = new Int32Array(n);
  const rowOf = new Int32Array(n);
  // The names grouped by their first character (lowercased), each group in row order: a first pass
  // reads the names of one group (where the rows it reads lie scattered over the whole list), so
  // the bytes it reads lie close together instead of one cache line a row over every name.
  const groupAt = new Int32Array(NAME_GROUPS + 1);
  for (let row = 0; row < n; row++) {
    const group = nameGroup(rows.baseFirst[row] ?? 0);
    groupAt[group + 1] = (groupAt[group + 1] ?? 0) + (rows.length[row] ?? 0) - (rows.base[row] ?? 0);
    rowOf[rows.idOf[row] ?? 0] = row;
  }
  for (let g = 1; g <= NAME_GROUPS; g++) groupAt[g] = (groupAt[g] ?? 0) + (groupAt[g - 1] ?? 0);
  for (let row = 0; row < n; row++) {
    const group = nameGroup(rows.baseFirst[row] ?? 0);
    const at = groupAt[group] ?? 0;
    nameAt[row] = at;
    groupAt[group] = at + (rows.length[row] ?? 0) - (rows.base[row] ?? 0);
  }
  const names = new Uint8Array(bytes);
  const namesOrig = new Uint8Array(bytes);
  const wide = new Uint8Array(n);
  const pairs = new Int32Array(n);
  const pairs64 = new Int32Array(2 * n);
  // Made here, by the first search, rather than while the list is prepared: the index is ready sooner.
  const wordStarts = new Int32Array(n);
  const { base, lower, paths } = prep;
  for (let id = 0; id < n; id++) {
    const row = rowOf[id] ?? 0;
    const low = lower[id] ?? "";
    const orig = paths[id] ?? "";
    let at = nameAt[row] ?? 0;
    let bits = 0;
    let lowWord = 0;
    let highWord = 0;
    let before = -1;
    for (let i = base[id] ?? 0; i < orig.length; i++) {
      const code = orig.charCodeAt(i);
      if (code >= 128) wide[row] = 1;
      const lowered = low === orig ? code : low.charCodeAt(i);
      namesOrig[at] = code;
      names[at++] = lowered;
      if (before >= 0) {
        bits |= pairBit(before, lowered);
        lowWord |= pairBits64(before, lowered, 0);
        highWord |= pairBits64(before, lowered, 1);
      }
      before = lowered;
    }
    pairs[row] = wide[row] === 1 ? -1 : bits;
    pairs64[2 * row] = wide[row] === 1 ? -1 : lowWord;
    pairs64[2 * row + 1] = wide[row] === 1 ? -1 : highWord;
    wordStarts[row] = startMaskOf(orig, base[id] ?? 0, orig.length, charBit);
  }
  return { nameAt, names, namesOrig, wide, pairs, pairs64, wordStarts };
}
