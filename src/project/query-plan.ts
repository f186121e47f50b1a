import { charBit, maskOf, upperMaskOf } from "./prepared.ts";
import { pairBit, pairBits64 } from "./penalty-order.ts";

/** What is worked out from (part of) a query once, before the entries are looked at. */
export type Plan = {
  query: string;
  mask: number;
  /** UTF-16 units, as charCodeAt sees the paths. */
  chars: string[];
  codes: Int32Array;
  /** The first character lowercased, to compare with a basename's first, and its bit. */
  first: number;
  firstBit: number;
  /** The second character lowercased (-1: none), to compare with a basename's second (rows.ts's SECOND_SHIFT). */
  second: number;
  /** The bits of the other characters. */
  restMask: number;
  /** suffixMasks[j]: the bits of the characters from the j-th on. */
  suffixMasks: Int32Array;
  /** A single lowercase letter: the character mask alone says whether it is there. */
  single: boolean;
  /** pairBits[j] (j ≥ 1): the bit of characters j-1 and j side by side (see pairBit); bits[j]: character j's. */
  pairBits: Int32Array;
  /** The bits of the same pairs in a row's pairs64, low word and high word (see pairBits64). */
  pairLow: Int32Array;
  pairHigh: Int32Array;
  bits: Int32Array;
  /** Scratch of gapsInBytes (name-bound.ts), one number per character: the plan is one search's. */
  afterGap: Int32Array;
  inRun: Int32Array;
  anywhere: Int32Array;
  lastAt: Int32Array;
  lastBonus: Int32Array;
  /** By ASCII code, the bits j of the characters that are it (`at`), and of those whose character before is it (`after`). */
  at: Int32Array;
  after: Int32Array;
};

export type Query = {
  whole: Plan;
  sensitive: boolean;
  /** The query's uppercase letters, each of which a path must hold. */
  upper: number;
  /** For a query with `/`: the part before its last `/` and the part after. */
  split: { dir: Plan; name: Plan } | null;
};

export function queryOf(query: string): Query {
  const sensitive = query !== query.toLowerCase();
  const slash = query.lastIndexOf("/");
  const split = slash < 0 ? null : { dir: planOf(query.slice(0, slash), sensitive), name: planOf(query.slice(slash + 1), sensitive) };
  return { whole: planOf(query, sensitive), sensitive, upper: upperMaskOf(query), split };
}

function planOf(query: string, sensitive: boolean): Plan {
  const lower = query.toLowerCase();
  const chars = Array.from({ length: query.length }, (_, i) => query.charAt(i));
  return {
    query,
    mask: maskOf(lower),
    chars,
    codes: Int32Array.from(chars, (c) => c.charCodeAt(0)),
    first: lower.charCodeAt(0),
    firstBit: lower ? charBit(lower.charCodeAt(0)) : 0,
    second: query.length < 2 ? -1 : query.charAt(1).toLowerCase().charCodeAt(0),
    restMask: maskOf(lower.slice(1)),
    suffixMasks: Int32Array.from({ length: query.length + 1 }, (_, j) => maskOf(lower.slice(j))),
    single: !sensitive && query.length === 1 && charBit(lower.charCodeAt(0)) < 1 << 26,
    pairBits: Int32Array.from({ length: query.length }, (_, j) => (j === 0 ? 0 : pairBit(lower.charCodeAt(j - 1), lower.charCodeAt(j)))),
    pairLow: Int32Array.from({ length: query.length }, (_, j) => (j === 0 ? 0 : pairBits64(lower.charCodeAt(j - 1), lower.charCodeAt(j), 0))),
    pairHigh: Int32Array.from({ length: query.length }, (_, j) => (j === 0 ? 0 : pairBits64(lower.charCodeAt(j - 1), lower.charCodeAt(j), 1))),
    bits: Int32Array.from({ length: query.length }, (_, j) => charBit(lower.charCodeAt(j))),
    afterGap: new Int32Array(query.length),
    inRun: new Int32Array(query.length),
    anywhere: new Int32Array(query.length),
    lastAt: new Int32Array(query.length),
    lastBonus: new Int32Array(query.length),
    at: bitsByCode(query, 0),
    after: bitsByCode(query, 1),
  };
}

/** By ASCII code, bit j (below 31) when the query's character j - `shift` is it. */
function bitsByCode(query: string, shift: number): Int32Array {
  const bits = new Int32Array(128);
  for (let j = shift; j < Math.min(query.length, 31); j++) {
    const code = query.charCodeAt(j - shift);
    if (code < 128) bits[code] = (bits[code] ?? 0) | (1 << j);
  }
  return bits;
}

/** Whether `chars` occur in `text` in order within [from, to). */
export function inOrder(text: string, chars: readonly string[], from: number, to: number): boolean {
  return matched(text, chars, 0, from, to) === chars.length;
}

/** How many of chars[done..] a greedy left-to-right scan of text[from, to) finds in order, plus `done`. */
export function matched(text: string, chars: readonly string[], done: number, from: number, to: number): number {
  let at = from;
  let j = done;
  for (; j < chars.length; j++) {
    const found = text.indexOf(chars[j] ?? "", at);
    if (found < 0 || found >= to) break;
    at = found + 1;
  }
  return j;
}
