import { bestScore, nameBound } from "./align.ts";
import type { Plan } from "./query-plan.ts";

/**
 * The most a query character earns within a basename (see align.ts): after a gap, MATCH + GAP_START
 * and its bonus, at most AT_WORD (the segment's bonus is the basename's first character's alone); in
 * a run after a gap, MATCH + the run's bonus (AT_WORD when some query character starts a word,
 * else CONSECUTIVE).
 */
const AFTER_GAP = 16 - 3;
const RUN = 16;
const AT_WORD = 8;
const CONSECUTIVE = 4;
/** Query characters past this many are taken to stand beside the one before (a bit each in 32). */
const MARKED = 31;

/** Bit j (1 ≤ j < 31) when `p`'s characters j-1 and j may stand side by side in a basename with the hashed pairs `pairs`. */
export function pairsByHash(pairs: number, p: Plan): number {
  let adjacent = 0;
  const m = Math.min(p.codes.length, MARKED);
  for (let j = 1; j < m; j++) if ((pairs & (p.pairBits[j] ?? 0)) !== 0) adjacent |= 1 << j;
  return adjacent;
}

/** What gapsInBytes writes for a pair that never stands in order in the basename: no match, beyond any gap. */
const NEVER = 1 << 20;
/** A gap's cost is counted up to this many characters: the bound stays within a kind of match (fuzzy.ts's TIER). */
const GAP_COUNTED = 64;

/**
 * For each query character j ≥ 1 of `p` (below the 31st), the fewest characters between a
 * character j-1 and a later character j in buf[from, to), into p.gaps[j] (NEVER when none follows
 * one): an alignment that does not put j right after j-1 leaves at least that many between them,
 * and pays a gap's cost for each. Returns the bits j with none between (side by side). Read from
 * the basename's bytes, where the hashed pairs (32 bits for all of a basename's pairs) often say
 * yes for a pair that is not there, and say nothing of a gap's length.
 */
export function gapsInBytes(buf: Uint8Array, from: number, to: number, p: Plan): number {
  const { codes, gaps, lastAt, at, after } = p;
  const m = Math.min(codes.length, MARKED);
  let asked = 0;
  for (let j = 1; j < m; j++) {
    asked |= 1 << j;
    gaps[j] = NEVER;
    // Where character j-1 last stood.
    lastAt[j] = -1;
  }
  let found = 0;
  // Most bytes are none of the query's characters: looked up by code, they cost a read each.
  for (let i = from; i < to && found !== asked; i++) {
    const here = buf[i] ?? 0;
    for (let rest = (at[here] ?? 0) & asked & ~found; rest !== 0; rest &= rest - 1) {
      const j = 31 - Math.clz32(rest & -rest);
      const before = lastAt[j] ?? -1;
      if (before < 0) continue;
      const gap = i - before - 1;
      if (gap < (gaps[j] ?? NEVER)) gaps[j] = gap;
      if (gap === 0) found |= 1 << j;
    }
    // After the gaps: a character may follow one equal to it.
    for (let rest = (after[here] ?? 0) & asked; rest !== 0; rest &= rest - 1) lastAt[31 - Math.clz32(rest & -rest)] = i;
  }
  return found;
}

/**
 * The most plan `p` can score within a basename: `atStart` when the basename starts with its first
 * character, `starts` the characters starting a word in it (see startMaskOf), `adjacent` bit j when
 * characters j-1 and j may stand side by side (past the 31st, taken to). A character that never
 * stands right after the one before follows a gap: it earns at most MATCH + GAP_START + its bonus (a
 * word's start's at most, none unless it starts a word somewhere), less GAP_EXTEND for each
 * character past the first between them when `gaps` (from gapsInBytes) says how many at least; and
 * a run after a gap carries no segment's bonus.
 */
export function boundInName(p: Plan, atStart: boolean, starts: number, adjacent: number, gaps: Int32Array | null = null): number {
  const m = p.codes.length;
  const most = nameBound(m, atStart, (starts & p.firstBit) !== 0, (starts & p.restMask) !== 0);
  const runMost = (starts & p.restMask) !== 0 ? AT_WORD : CONSECUTIVE;
  let score = bestScore(1);
  let broken = false;
  for (let j = 1; j < m; j++) {
    if (j < MARKED && (adjacent & (1 << j)) === 0) {
      score += AFTER_GAP + ((starts & (p.bits[j] ?? 0)) !== 0 ? AT_WORD : 0);
      if (gaps) score -= Math.min(gaps[j] ?? 1, GAP_COUNTED) - 1;
      broken = true;
    } else score += broken ? RUN + runMost : bestScore(2) - bestScore(1);
  }
  return Math.min(most, score);
}
