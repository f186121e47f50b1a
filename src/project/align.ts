// Scores in the manner of fzf: every matched character earns MATCH, plus a bonus for where it
// lands (the start of a path segment, of a word after . _ - or space, a camelCase hump, a digit
// run), doubled for the query's first character; a character right after the previous match keeps
// the bonus of its run's start; a gap costs GAP_START, and GAP_EXTEND per further character.
const MATCH = 16;
const GAP_START = -3;
const GAP_EXTEND = -1;
const BONUS_SEGMENT = 10;
const BONUS_BOUNDARY = 8;
const BONUS_CAMEL = 7;
const BONUS_CONSECUTIVE = 4;
const FIRST_MULTIPLIER = 2;

/** Returned by {@link align} when the query does not occur in order. */
export const NO_MATCH = -1e9;

/** The highest score a query of `m` characters can get: each character at a segment start, in one run. */
export function bestScore(m: number): number {
  return m * (MATCH + BONUS_SEGMENT) + BONUS_SEGMENT * (FIRST_MULTIPLIER - 1);
}

/**
 * A bound on {@link align} within a basename, from what is known without reading it: whether the
 * basename starts with the query's first character, and whether the first and any other of the
 * query's characters start a word in it (see {@link startMaskOf}). Past a basename's first
 * character no position earns more than BONUS_BOUNDARY, and none without a word start.
 */
export function nameBound(m: number, atStart: boolean, firstStarts: boolean, restStarts: boolean): number {
  if (atStart) return bestScore(m);
  const first = MATCH + (firstStarts ? BONUS_BOUNDARY : 0) * FIRST_MULTIPLIER;
  const rest = MATCH + (firstStarts || restStarts ? BONUS_BOUNDARY : BONUS_CONSECUTIVE);
  return first + (m - 1) * rest;
}

const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;
const SEP = 3;
const DELIM = 4;
const OTHER = 5;
const CLASSES = 6;

const CLASS_OF = new Uint8Array(128).map((_, code) => {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 47) return SEP;
  if (code === 46 || code === 95 || code === 45 || code === 32) return DELIM;
  return OTHER;
});

/** The bonus of a character of class `cur` after one of class `prev`, at BONUS[prev * CLASSES + cur]. */
const BONUS = new Int8Array(CLASSES * CLASSES).map((_, at) => {
  const prev = Math.floor(at / CLASSES);
  const cur = at % CLASSES;
  if (cur === SEP || cur === DELIM) return BONUS_BOUNDARY;
  if (prev === SEP) return BONUS_SEGMENT;
  if (prev === DELIM || prev === OTHER) return BONUS_BOUNDARY;
  if (prev === LOWER && cur === UPPER) return BONUS_CAMEL;
  if (prev !== DIGIT && cur === DIGIT) return BONUS_CAMEL;
  return 0;
});

// Non-ASCII counts as a lowercase letter: part of a word.
const classOf = (code: number): number => (code < 128 ? (CLASS_OF[code] ?? OTHER) : LOWER);

/** The bonus a character earns at orig[i] (as {@link alignBytes} gives it), the position before `from` a segment's start. */
export function bonusAt(orig: Uint8Array, from: number, i: number): number {
  const prevClass = i === from ? SEP : classOf(orig[i - 1] ?? 0);
  return BONUS[prevClass * CLASSES + classOf(orig[i] ?? 0)] ?? 0;
}

/**
 * The characters (as `bit` gives them, lowercased) that earn a bonus at their place in
 * orig[from, to): those starting a word or a segment, humps, digits after a letter, delimiters.
 */
export function startMaskOf(orig: string, from: number, to: number, bit: (code: number) => number): number {
  let bits = 0;
  let prevClass = from === 0 ? SEP : classOf(orig.charCodeAt(from - 1));
  for (let i = from; i < to; i++) {
    const code = orig.charCodeAt(i);
    const cls = classOf(code);
    if ((BONUS[prevClass * CLASSES + cls] ?? 0) > 0) bits |= bit(code >= 65 && code <= 90 ? code + 32 : code);
    prevClass = cls;
  }
  return bits;
}

/**
 * Where an alignment stands after some positions of a text: for each query character j, the best
 * score of the query up to j ending at the last position (`score`), the bonus its run started with
 * (`run`), and the best such score from further back less the gap to here (`gap`); and the best
 * score of the whole query so far. It is all a later position needs, so an alignment can stop at
 * a directory's end and go on into each of its entries' basenames.
 */
export type AlignState = { score: Int32Array; run: Int32Array; gap: Int32Array; best: number };

/** The state before any position. */
export function startState(m: number): AlignState {
  return { score: new Int32Array(m).fill(NO_MATCH), run: new Int32Array(m), gap: new Int32Array(m).fill(NO_MATCH), best: NO_MATCH };
}

/** A copy of `state`, into `into` when given (of the same query length). */
export function copyState(state: AlignState, into?: AlignState): AlignState {
  if (!into) return { score: state.score.slice(), run: state.run.slice(), gap: state.gap.slice(), best: state.best };
  into.score.set(state.score);
  into.run.set(state.run);
  into.gap.set(state.gap);
  into.best = state.best;
  return into;
}

/**
 * Advances `state` over text[from, to): `text` is what is compared (lowercased for a
 * case-insensitive query), `orig` the same path as written, whose case tells the camelCase humps.
 * Optimal under the scores above (dynamic programming, affine gaps), one position at a time.
 */
export function advance(state: AlignState, text: string, orig: string, from: number, to: number, codes: Int32Array): void {
  let best = state.best;
  let prevClass = from === 0 ? SEP : classOf(orig.charCodeAt(from - 1));
  for (let i = from; i < to; i++) {
    const cls = classOf(orig.charCodeAt(i));
    const b = BONUS[prevClass * CLASSES + cls] ?? 0;
    prevClass = cls;
    best = column(state, codes, text.charCodeAt(i), b, best);
  }
  state.best = best;
}

let scratch: AlignState | null = null;

/** The best score of the query `codes` within text[from, to), or {@link NO_MATCH}. */
export function align(text: string, orig: string, from: number, to: number, codes: Int32Array): number {
  const m = codes.length;
  if (m === 0) return 0;
  // Nothing can start before the first character's first place, nor end after the last's last.
  const start = text.indexOf(String.fromCharCode(codes[0] ?? 0), from);
  const end = text.lastIndexOf(String.fromCharCode(codes[m - 1] ?? 0), to - 1) + 1;
  if (start < 0 || start >= to || end <= start) return NO_MATCH;
  if (scratch?.score.length !== m) scratch = startState(m);
  else resetState(scratch);
  advance(scratch, text, orig, start, end, codes);
  return scratch.best;
}

/** Continues `state` (left as it was) over text[from, to) and gives the best score of the query. */
export function alignOn(state: AlignState, text: string, orig: string, from: number, to: number, codes: Int32Array): number {
  const m = codes.length;
  if (scratch?.score.length !== m) scratch = copyState(state);
  else copyState(state, scratch);
  const end = text.lastIndexOf(String.fromCharCode(codes[m - 1] ?? 0), to - 1) + 1;
  if (end > from) advance(scratch, text, orig, from, end, codes);
  return scratch.best;
}

function resetState(state: AlignState): void {
  state.score.fill(NO_MATCH);
  state.gap.fill(NO_MATCH);
  state.best = NO_MATCH;
}


/**
 * {@link align} over bytes (ASCII text only), for a basename kept in one buffer with the others:
 * `buf` is what is compared, `orig` the same bytes as written, and the position before `from` is a
 * segment's start (the `/` before a basename). The same scores as {@link align} gives the path's
 * string from the basename's start: read from a buffer in the order a search goes, a row costs no
 * visit to its strings scattered in memory.
 */
export function alignBytes(buf: Uint8Array, orig: Uint8Array, from: number, to: number, codes: Int32Array): number {
  const m = codes.length;
  if (m === 0) return 0;
  const firstCode = codes[0] ?? 0;
  const lastCode = codes[m - 1] ?? 0;
  let start = from;
  while (start < to && buf[start] !== firstCode) start++;
  let end = to;
  while (end > start && buf[end - 1] !== lastCode) end--;
  if (start >= to || end <= start) return NO_MATCH;
  if (scratch?.score.length !== m) scratch = startState(m);
  else resetState(scratch);
  const state = scratch;
  let best = NO_MATCH;
  let prevClass = start === from ? SEP : classOf(orig[start - 1] ?? 0);
  for (let i = start; i < end; i++) {
    const cls = classOf(orig[i] ?? 0);
    const b = BONUS[prevClass * CLASSES + cls] ?? 0;
    prevClass = cls;
    best = column(state, codes, buf[i] ?? 0, b, best);
  }
  return best;
}

/**
 * {@link align} over UTF-16 units from 0 to `to`: `buf` is what is compared, `orig` the same units
 * as written. For a directory's path put together from its names (see dir-part.ts), where the
 * directory's string, a slice of a listed path, cost several times more to read.
 */
export function alignUnits(buf: Uint16Array, orig: Uint16Array, to: number, codes: Int32Array): number {
  const m = codes.length;
  if (m === 0) return 0;
  const firstCode = codes[0] ?? 0;
  const lastCode = codes[m - 1] ?? 0;
  let start = 0;
  while (start < to && buf[start] !== firstCode) start++;
  let end = to;
  while (end > start && buf[end - 1] !== lastCode) end--;
  if (start >= to || end <= start) return NO_MATCH;
  if (scratch?.score.length !== m) scratch = startState(m);
  else resetState(scratch);
  const state = scratch;
  let best = NO_MATCH;
  let prevClass = start === 0 ? SEP : classOf(orig[start - 1] ?? 0);
  for (let i = start; i < end; i++) {
    const cls = classOf(orig[i] ?? 0);
    const b = BONUS[prevClass * CLASSES + cls] ?? 0;
    prevClass = cls;
    best = column(state, codes, buf[i] ?? 0, b, best);
  }
  return best;
}

/**
 * One position of the alignment: the character `c`, with the bonus `b` its place earns, taken into
 * every row of `state`; returns `best`, raised where the whole query now ends at a higher score.
 * Row j reads row j-1 as it stood at the previous position, so rows go from the last down.
 */
function column(state: AlignState, codes: Int32Array, c: number, b: number, best: number): number {
  const { score, run, gap } = state;
  const last = codes.length - 1;
  for (let j = last; j >= 0; j--) {
    const before = score[j] ?? NO_MATCH;
    const carried = gap[j] ?? NO_MATCH;
    gap[j] = Math.max(carried + GAP_EXTEND, before + GAP_START);
    if (codes[j] !== c) {
      score[j] = NO_MATCH;
      continue;
    }
    if (j === 0) {
      const s = MATCH + b * FIRST_MULTIPLIER;
      score[0] = s;
      run[0] = b;
      if (last === 0 && s > best) best = s;
      continue;
    }
    let s = NO_MATCH;
    let r = b;
    const prev = score[j - 1] ?? NO_MATCH;
    if (prev > NO_MATCH) {
      let runStart = run[j - 1] ?? 0;
      if (b >= BONUS_BOUNDARY && b > runStart) runStart = b;
      s = prev + MATCH + Math.max(b, runStart, BONUS_CONSECUTIVE);
      r = runStart;
    }
    const jumped = gap[j - 1] ?? NO_MATCH;
    if (jumped > NO_MATCH / 2 && jumped + MATCH + b > s) {
      s = jumped + MATCH + b;
      r = b;
    }
    score[j] = s;
    run[j] = r;
    if (j === last && s > best) best = s;
  }
  return best;
}
