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

/**
 * Bit j of `candidates` kept when `p`'s characters j-1 and j stand side by side in buf[from, to):
 * read from the basename's bytes, where the hashed pairs (32 bits for all of a basename's pairs)
 * often say yes for a pair that is not there.
 */
export function pairsInBytes(buf: Uint8Array, from: number, to: number, p: Plan, candidates: number): number {
  const codes = p.codes;
  let found = 0;
  for (let i = from + 1; i < to; i++) {
    const before = buf[i - 1] ?? 0;
    const here = buf[i] ?? 0;
    for (let rest = candidates & ~found; rest !== 0; rest &= rest - 1) {
      const j = 31 - Math.clz32(rest & -rest);
      if (codes[j - 1] === before && codes[j] === here) found |= 1 << j;
    }
    if (found === candidates) break;
  }
  return found;
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
