import { bestScore, bonusAt, nameBound } from "./align.ts";
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

/**
 * Of the pairs in `adjacent` (as pairsByHash gives them), those the row's second filter (`low`,
 * `high`: its pairs64 words) holds too: a pair side by side in the basename sets its bits in both.
 */
export function pairsBy64(low: number, high: number, p: Plan, adjacent: number): number {
  let kept = adjacent;
  for (let rest = adjacent; rest !== 0; rest &= rest - 1) {
    const j = 31 - Math.clz32(rest & -rest);
    const l = p.pairLow[j] ?? 0;
    const h = p.pairHigh[j] ?? 0;
    if ((low & l) !== l || (high & h) !== h) kept &= ~(1 << j);
  }
  return kept;
}

/** A gap's cost is counted up to this many characters: the bound stays within a kind of match (fuzzy.ts's TIER). */
const GAP_COUNTED = 64;

/**
 * Reads the basename buf[from, to) (`orig` as written, for the bonuses) for each query character
 * j ≥ 1 of `p` (below the 31st) and returns the bits j where characters j-1 and j stand side by
 * side. For each j it writes the most j's place can give beyond MATCH + GAP_START when it follows
 * j-1 after a gap (`afterGap`: its bonus less GAP_EXTEND for each character past the first between
 * them, from the nearest j-1 before it); the most bonus a place of j earns (`anywhere`); and the
 * most bonus either place of j-1 and j side by side earns (`inRun`). Where the hashed pairs (32
 * bits for all of a basename's pairs) often say yes for a pair that is not there, and say nothing
 * of where a gap or a run stands. Once every pair stands side by side it stops, the rest unwritten:
 * the bound is then the most a name gives.
 */
export function gapsInBytes(buf: Uint8Array, orig: Uint8Array, from: number, to: number, p: Plan): number {
  const { codes, afterGap, inRun, anywhere, lastAt, lastBonus, at, after } = p;
  const m = Math.min(codes.length, MARKED);
  let asked = 0;
  for (let j = 1; j < m; j++) {
    asked |= 1 << j;
    afterGap[j] = -GAP_COUNTED;
    inRun[j] = 0;
    anywhere[j] = 0;
    // Where character j-1 last stood, and its bonus there.
    lastAt[j] = -1;
  }
  let found = 0;
  // Most bytes are none of the query's characters: looked up by code, they cost a read each. Once
  // every pair stands side by side somewhere, the bound is the most a name gives (see boundInBytes).
  for (let i = from; i < to && found !== asked; i++) {
    const here = buf[i] ?? 0;
    const isAt = (at[here] ?? 0) & asked;
    const isAfter = (after[here] ?? 0) & asked;
    if ((isAt | isAfter) === 0) continue;
    const bonus = bonusAt(orig, from, i);
    for (let rest = isAt; rest !== 0; rest &= rest - 1) {
      const j = 31 - Math.clz32(rest & -rest);
      if (bonus > (anywhere[j] ?? 0)) anywhere[j] = bonus;
      const before = lastAt[j] ?? -1;
      if (before < 0) continue;
      const gap = i - before - 1;
      if (gap === 0) {
        found |= 1 << j;
        inRun[j] = Math.max(inRun[j] ?? 0, bonus, lastBonus[j] ?? 0);
      } else afterGap[j] = Math.max(afterGap[j] ?? 0, bonus - Math.min(gap - 1, GAP_COUNTED));
    }
    // After the gaps: a character may follow one equal to it.
    for (let rest = isAfter; rest !== 0; rest &= rest - 1) {
      const j = 31 - Math.clz32(rest & -rest);
      lastAt[j] = i;
      lastBonus[j] = bonus;
    }
  }
  return found;
}

/**
 * {@link boundInName} from what gapsInBytes found (`adjacent` its result): a character that never
 * stands right after the one before earns MATCH + GAP_START + its `afterGap`; one that does, in a
 * run after a gap, MATCH + the most bonus of a place in the run (each place of the run stands side
 * by side with the next, back to the last character that never does), or MATCH + GAP_START + its
 * most bonus when a gap comes before it after all.
 */
export function boundInBytes(p: Plan, atStart: boolean, starts: number, adjacent: number): number {
  const m = p.codes.length;
  const most = nameBound(m, atStart, (starts & p.firstBit) !== 0, (starts & p.restMask) !== 0);
  if ((adjacent | 1) === (1 << Math.min(m, MARKED)) - 1 && m <= MARKED) return most;
  const runMost = (starts & p.restMask) !== 0 ? AT_WORD : CONSECUTIVE;
  let score = bestScore(1);
  let broken = false;
  let run = 0;
  for (let j = 1; j < m; j++) {
    if (j >= MARKED) score += broken ? RUN + runMost : bestScore(2) - bestScore(1);
    else if ((adjacent & (1 << j)) === 0) {
      score += AFTER_GAP + (p.afterGap[j] ?? 0);
      broken = true;
      run = 0;
    } else if (broken) {
      run = Math.max(run, p.inRun[j] ?? 0);
      score += Math.max(RUN + Math.max(run, CONSECUTIVE), AFTER_GAP + (p.anywhere[j] ?? 0));
    } else score += bestScore(2) - bestScore(1);
  }
  return Math.min(most, score);
}

/**
 * The most plan `p` can score within a basename: `atStart` when the basename starts with its first
 * character, `starts` the characters starting a word in it (see startMaskOf), `adjacent` bit j when
 * characters j-1 and j may stand side by side (past the 31st, taken to). A character that never
 * stands right after the one before follows a gap: it earns at most MATCH + GAP_START + its bonus (a
 * word's start's at most, none unless it starts a word somewhere), and a run after a gap carries
 * no segment's bonus.
 */
export function boundInName(p: Plan, atStart: boolean, starts: number, adjacent: number): number {
  const m = p.codes.length;
  const most = nameBound(m, atStart, (starts & p.firstBit) !== 0, (starts & p.restMask) !== 0);
  const runMost = (starts & p.restMask) !== 0 ? AT_WORD : CONSECUTIVE;
  let score = bestScore(1);
  let broken = false;
  for (let j = 1; j < m; j++) {
    if (j < MARKED && (adjacent & (1 << j)) === 0) {
      score += AFTER_GAP + ((starts & (p.bits[j] ?? 0)) !== 0 ? AT_WORD : 0);
      broken = true;
    } else score += broken ? RUN + runMost : bestScore(2) - bestScore(1);
  }
  return Math.min(most, score);
}
