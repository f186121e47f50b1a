import { type AlignState, advance, align, alignBytes, alignOn, bestScore, nameBound, startState } from "./align.ts";
import type { DirPart, Prepared } from "./prepared.ts";
import { dirPartOf, folderMost, folderScore } from "./dir-part.ts";
import { inOrder, matched, type Plan, type Query, queryOf } from "./query-plan.ts";
import { BitRows, type Chunk } from "./char-bits.ts";
import { listLater, narrowFrom, type RowTest, remember, samePasses, sortAny, sortAnyLazy } from "./kept-rows.ts";
import { orderRows, PER_BASENAME_CHAR, PER_PATH_CHAR, type Rows } from "./penalty-order.ts";
import { BASE, BASE_MASK, FIRST, FIRST_CHAR, FOLDER, IS_DIR, LENGTH, NAME_AT, PAIRS, SECOND_SHIFT, STARTS, STRIDE, TOUCH_BLOCK, touchRows, WIDE } from "./rows.ts";
import { TopK } from "./top-k.ts";
import { boundInBytes, boundInName, gapsInBytes, pairsBy64, pairsByHash } from "./name-bound.ts";

/**
 * Kinds of match, best first, far enough apart that nothing within a kind (alignment, length,
 * frecency) crosses into another: the basename starts with the query; the query lies within the
 * basename; it spans the path. For a query with `/`, the part after the last `/` plays the
 * basename's part and the part before it must lie in the directories above.
 */
const TIER = 100_000;
const PREFIX = 3 * TIER;
const IN_NAME = 2 * TIER;
const IN_PATH = 1 * TIER;
/** A basename that is the query (or whose stem is) goes first among prefix matches. */
const EXACT_NAME = 4;
const EXACT_STEM = 3;
/**
 * A pass stops at the first row whose best falls below the floor by more than this: rows of equal
 * penalty may differ in its last bit (the same sum of other lengths), never by this much.
 */
const STOP_MARGIN = 1e-6;

/** One ranked entry: its index in the prepared list and its score (higher is better). */
export type Ranked = { id: number; score: number };

/** How many entries {@link rank} gives, and the frecency bonuses it adds. */
export type RankOptions = {
  limit: number;
  /** A bonus per path (frecency), at most `maxBoost`: it orders close matches, never kinds of match. */
  boost?: ReadonlyMap<string, number>;
  maxBoost?: number;
};

/** A row's fate in one search: not a match, kept (as a candidate), or put off to a later pass. */
const DROP = 0;
const KEEP = 1;
const LATER = 2;
const LAST = 3;

/**
 * The best `limit` entries of `prep` for a non-empty query, best first: the query's characters in
 * order, case-insensitive unless the query has an uppercase letter (smart case). Exact: the top
 * `limit` of scoring every entry, found without scoring most of them: the likeliest entries are
 * scored first (the basename starts with the query's first character), then the other entries
 * holding the query's characters in the basename, then the rest, so that by then the heap's floor
 * has risen and turns most away from typed arrays alone (whole passes at once when nothing in them
 * could get in). A query extending an earlier one only looks at the entries that one kept, and
 * only at those of the passes it needs.
 */
export function rank(prep: Prepared, query: string, opts: RankOptions): Ranked[] {
  const rows = (prep.rows ??= orderRows(prep));
  const from = narrowFrom(prep, query);
  // What the last queries left behind is for the one typed after them only.
  if (!from) prep.dirPart = null;
  const search = new Search(prep, rows, queryOf(query), opts);
  const test = rowTest(prep, search.q);
  const handed = from && samePasses(from.query, query) ? from.kept : null;
  // Rows handed on by a query with the same passes are sorted as each pass reads them; others all at once.
  const all = handed ? null : sortAnyLazy(rows, test, from ? [...from.kept.first, ...from.kept.later, ...from.kept.last] : null);
  const lastRows: Chunk[] = all ? [...all.last] : [...handed?.last ?? []];
  // Rows of the first two passes whose basename turned out not to hold the query: each ascending.
  const movedFirst: number[] = [];
  const movedLater: number[] = [];

  // A handed-on row whose basename no longer holds the characters goes to the last pass.
  const firstSorted = all ?? sortAny(rows, test, handed?.first ?? []);
  if (!all) lastRows.push(...firstSorted.last);
  const first = firstSorted.first;
  const keptFirst = search.inNames(first, search.firstMost, movedFirst);

  // The floor only rises: a pass skipped leaves every later pass skipped too.
  let keptLater: Chunk[];
  if (search.floor > search.laterMost) keptLater = all ? [all.later] : [...handed?.later ?? []];
  else {
    const sorted = all ? listLater(rows, test, all.later) : sortAny(rows, test, handed?.later ?? []);
    // A handed-on row whose basename no longer holds the characters goes to the last pass; so does
    // one the sort of every row left unchecked whose directory or uppercase letters do not fit.
    lastRows.push(...sorted.last);
    keptLater = [search.inNames(sorted.later, search.laterMost, movedLater)];
  }
  lastRows.push(Int32Array.from(movedFirst), Int32Array.from(movedLater));

  let keptLast = lastRows;
  if (search.floor <= search.lastMost) {
    // Chunk by chunk, so that each stays in ascending order.
    keptLast = lastRows.map((chunk) => search.inPaths(chunk));
  }
  const nonEmpty = <T extends Chunk>(chunks: T[]) => chunks.filter((chunk) => chunk instanceof BitRows || chunk.length > 0);
  remember(prep, query, { first: [keptFirst], later: nonEmpty(keptLater), last: nonEmpty(keptLast) });
  return search.top.sorted();
}

/** What sortOut needs of the query. */
function rowTest(prep: Prepared, q: Query): RowTest {
  const name = q.split ? q.split.name : q.whole;
  const nameless = name.codes.length === 0;
  const fits = q.split && !nameless ? dirPartOf(prep, q.split.dir, q.sensitive).fits : null;
  return { wholeMask: q.whole.mask, upper: q.upper, nameFirst: name.first, nameMask: name.mask, nameless, fits };
}

/** One search's state: the query, the heap, and how a row is judged. */
class Search {
  readonly top: TopK;
  private readonly texts: readonly string[];
  private readonly boost: ReadonlyMap<string, number> | null;
  private readonly maxBoost: number;
  /** Per directory, how much of the whole query a greedy scan of it finds; -1 not yet known. */
  private wholeDone: Int32Array | null = null;
  /** Per directory, where the whole query's alignment stands at its end. */
  private readonly folderStates = new Map<number, AlignState>();
  /** The directory part's state, once {@link dirPart} has found it. */
  private dirKnown: DirPart | null = null;
  /** The most an entry can score, less its penalty, whose basename starts with the query's (name part's) first character. */
  readonly firstMost: number;
  /** The most an entry can score whose basename does not start with the query (or name part). */
  readonly laterMost: number;
  /** The most an entry can score that does not match within its basename. */
  readonly lastMost: number;

  /** Whether a row's score falls with its penalty (not for a query ending in `/`, scored by the path's length alone). */
  private readonly stops: boolean;

  constructor(
    private readonly prep: Prepared,
    private readonly rows: Rows,
    readonly q: Query,
    opts: RankOptions,
  ) {
    this.top = new TopK(Math.max(0, opts.limit), prep.paths);
    this.texts = q.sensitive ? prep.paths : prep.lower;
    this.boost = opts.boost && opts.boost.size > 0 ? opts.boost : null;
    this.maxBoost = this.boost ? (opts.maxBoost ?? 0) : 0;
    this.laterMost = IN_NAME + (q.split ? bestScore(q.split.dir.codes.length) + laterName(q.split.name.codes.length) : laterName(q.whole.codes.length));
    this.lastMost = IN_PATH + bestScore(q.whole.codes.length);
    this.firstMost = PREFIX + EXACT_NAME + (q.split ? bestScore(q.split.dir.codes.length) + bestScore(q.split.name.codes.length) : bestScore(q.whole.codes.length));
    this.stops = !q.split || q.split.name.codes.length > 0;
  }

  /**
   * {@link inName} over `list` (ascending rows, so by penalty), scoring at most `most` less a row's
   * penalty: stops at the first row that cannot get in, since none after it can, and keeps that row
   * and the rest unread. Rows found not to match within their basename go to `moved`.
   */
  inNames(list: Int32Array, most: number, moved: number[]): Int32Array {
    const kept = new Int32Array(list.length);
    const { packed, pairs64 } = this.rows;
    let k = 0;
    let touchedTo = 0;
    for (let i = 0; i < list.length; i++) {
      if (i === touchedTo) {
        touchedTo = Math.min(list.length, i + TOUCH_BLOCK);
        this.touched = touchRows(list, i, touchedTo, packed, pairs64);
      }
      const row = list[i] ?? 0;
      const len = packed[row * STRIDE + LENGTH] ?? 0;
      // The row's penalty (penaltyOf), written out: a call here was not inlined.
      if (this.stops && most - (PER_BASENAME_CHAR * (len - (packed[row * STRIDE + BASE] ?? 0)) + PER_PATH_CHAR * len) < this.floor - STOP_MARGIN) {
        kept.set(list.subarray(i), k);
        return kept.subarray(0, k + list.length - i);
      }
      const fate = this.inName(row);
      if (fate === KEEP) kept[k++] = row;
      else if (fate === LAST) moved.push(row);
    }
    return kept.subarray(0, k);
  }

  /** What touchRows read last: kept, so that its reads are not left out as unused. */
  touched = 0;

  /**
   * The lowest score that could still get in, allowing for the largest boost: a field set at each
   * push, where a row compares with it several times.
   */
  floor = -Infinity;

  private push(row: number, score: number): void {
    const id = this.rows.idOf[row] ?? 0;
    const boost = this.boost?.get(this.prep.paths[id] ?? "") ?? 0;
    this.top.push(id, score + boost);
    this.floor = this.top.floor - this.maxBoost;
  }

  /** A match within the basename, scored if it could get in; LAST when not within it. */
  inName(row: number): number {
    if (this.q.split) return this.inNameSplit(row, this.q.split.dir, this.q.split.name);
    const p = this.q.whole;
    const packed = this.rows.packed;
    const at = row * STRIDE;
    const b = packed[at + BASE] ?? 0;
    const len = packed[at + LENGTH] ?? 0;
    const penalty = PER_BASENAME_CHAR * (len - b) + PER_PATH_CHAR * len;
    if (((packed[at + FIRST] ?? 0) & FIRST_CHAR) === p.first) {
      // Nothing this entry could score gets in: a prefix match is the best it can be.
      if (PREFIX + bestScore(p.codes.length) + exactBound(p.codes.length, len - b) - penalty < this.floor) return KEEP;
      if (p.single || this.nameStarts(row, p)) {
        this.push(row, PREFIX + bestScore(p.codes.length) + this.nameExactness(row, p) - penalty);
        return KEEP;
      }
    }
    if (((packed[at + BASE_MASK] ?? 0) & p.mask) !== p.mask) return LAST;
    if (IN_NAME + this.bound(row, p) - penalty < this.floor) return KEEP;
    if (!p.single && IN_NAME + this.boundByPairs(row, p) - penalty < this.floor) return KEEP;
    if (!p.single && IN_NAME + this.boundByBytes(row, p) - penalty < this.floor) return KEEP;
    if (!p.single && !this.nameHolds(row, p)) return LAST;
    this.push(row, IN_NAME + this.alignName(row, p) - penalty);
    return KEEP;
  }

  /** {@link inName} for a query with `/`: its name part in the basename (none: a directory), the rest above. */
  private inNameSplit(row: number, dir: Plan, name: Plan): number {
    const packed = this.rows.packed;
    const at = row * STRIDE;
    const b = packed[at + BASE] ?? 0;
    const len = packed[at + LENGTH] ?? 0;
    const flags = packed[at + FIRST] ?? 0;
    if (name.codes.length === 0) {
      if ((flags & IS_DIR) === 0) return LAST;
      if (IN_NAME + bestScore(dir.codes.length) - PER_PATH_CHAR * len < this.floor) return KEEP;
      const text = this.texts[this.rows.idOf[row] ?? 0] ?? "";
      if (!inOrder(text, dir.chars, 0, len)) return LAST;
      this.push(row, IN_NAME + align(text, this.prep.paths[this.rows.idOf[row] ?? 0] ?? "", 0, len, dir.codes) - PER_PATH_CHAR * len);
      return KEEP;
    }
    if (((packed[at + BASE_MASK] ?? 0) & name.mask) !== name.mask) return LAST;
    // Whether the basename starts with the name part: a byte comparison, and without it the row's best is a kind lower.
    const prefix = (flags & FIRST_CHAR) === name.first && this.nameStarts(row, name);
    const penalty = PER_BASENAME_CHAR * (len - b) + PER_PATH_CHAR * len;
    let nameMost = (prefix ? PREFIX + EXACT_NAME : IN_NAME) + this.bound(row, name) - penalty;
    // Out of reach even with the best the directory part can score: its directory need not be read.
    const dirMost = bestScore(dir.codes.length);
    if (nameMost + dirMost < this.floor) return KEEP;
    const dirPart = this.dirPart(dir);
    const folder = packed[at + FOLDER] ?? -1;
    if (dirPart.fits[folder + 1] !== 1) return LAST;
    // The basename's bytes before the directory's alignment: fewer directories are aligned.
    if (!prefix) {
      nameMost = IN_NAME + this.boundByPairs(row, name) - penalty;
      if (nameMost + dirMost < this.floor) return KEEP;
      nameMost = IN_NAME + this.boundByBytes(row, name) - penalty;
    }
    if (nameMost + dirMost < this.floor) return KEEP;
    // The most this directory gives (see folderMost): most directories need no alignment.
    if (nameMost + folderMost(this.prep, dirPart, folder, dir) < this.floor) return KEEP;
    const dirScore = folderScore(this.prep, dirPart, folder, dir);
    if (nameMost + dirScore < this.floor) return KEEP;
    if (!this.nameHolds(row, name)) return LAST;
    const nameScore = prefix ? PREFIX + bestScore(name.codes.length) + this.nameExactness(row, name) : IN_NAME + this.alignName(row, name);
    this.push(row, dirScore + nameScore - penalty);
    return KEEP;
  }

  /** The basename's bytes (as compared: lowercased unless the query is case-sensitive), or null when it is past ASCII. */
  private nameBytes(row: number): Uint8Array | null {
    if (((this.rows.packed[row * STRIDE + FIRST] ?? 0) & WIDE) !== 0) return null;
    return this.q.sensitive ? this.rows.namesOrig : this.rows.names;
  }

  /** Whether the basename of `row` starts with `p`. */
  private nameStarts(row: number, p: Plan): boolean {
    const flags = this.rows.packed[row * STRIDE + FIRST] ?? 0;
    // The second character, kept with the first: most rows starting with the first character are turned down without a read of their bytes.
    if (p.second >= 0 && (flags & WIDE) === 0 && (flags >>> SECOND_SHIFT) !== p.second) return false;
    const buf = this.nameBytes(row);
    if (!buf) return (this.texts[this.rows.idOf[row] ?? 0] ?? "").startsWith(p.query, this.rows.base[row] ?? 0);
    const at = this.nameAt(row);
    const m = p.codes.length;
    if (at + m > this.nameEnd(row, at)) return false;
    for (let j = 0; j < m; j++) if (buf[at + j] !== p.codes[j]) return false;
    return true;
  }

  /** {@link exactness} of a basename that starts with `p`. */
  private nameExactness(row: number, p: Plan): number {
    const buf = this.nameBytes(row);
    if (!buf) return exactness(p.query, this.texts[this.rows.idOf[row] ?? 0] ?? "", this.rows.base[row] ?? 0);
    const at = this.nameAt(row);
    const end = this.nameEnd(row, at);
    const after = at + p.codes.length;
    if (after === end) return EXACT_NAME;
    if (buf[after] !== 46) return 0;
    for (let i = after + 1; i < end; i++) if (buf[i] === 46) return 0;
    return EXACT_STEM;
  }

  /** Whether `p`'s characters occur in order in the basename of `row`. */
  private nameHolds(row: number, p: Plan): boolean {
    const buf = this.nameBytes(row);
    if (!buf) return inOrder(this.texts[this.rows.idOf[row] ?? 0] ?? "", p.chars, this.rows.base[row] ?? 0, this.rows.length[row] ?? 0);
    let i = this.nameAt(row);
    const end = this.nameEnd(row, i);
    for (let j = 0; j < p.codes.length; j++) {
      const code = p.codes[j];
      while (i < end && buf[i] !== code) i++;
      if (i === end) return false;
      i++;
    }
    return true;
  }

  /** The alignment of `p` within the basename of `row`. */
  private alignName(row: number, p: Plan): number {
    const buf = this.nameBytes(row);
    const id = this.rows.idOf[row] ?? 0;
    if (!buf) return align(this.texts[id] ?? "", this.prep.paths[id] ?? "", this.rows.base[row] ?? 0, this.rows.length[row] ?? 0, p.codes);
    const at = this.nameAt(row);
    return alignBytes(buf, this.rows.namesOrig, at, this.nameEnd(row, at), p.codes);
  }

  /** Where the basename of `row` starts in the name buffers. */
  private nameAt(row: number): number {
    return this.rows.packed[row * STRIDE + NAME_AT] ?? 0;
  }

  /** Where it ends, given where it starts. */
  private nameEnd(row: number, at: number): number {
    const o = row * STRIDE;
    return at + (this.rows.packed[o + LENGTH] ?? 0) - (this.rows.packed[o + BASE] ?? 0);
  }

  /**
   * How many of `p`'s characters a greedy scan of the directory holding `row` finds (with
   * `separator`, the `/` after it too): worked out once per directory and query, in `done`, since a
   * directory's entries share it; the rest must then lie in the basename.
   */
  private throughFolder(row: number, p: Plan, done: Int32Array, separator: boolean): number {
    const folder = this.rows.folderOf[row] ?? -1;
    if (folder < 0) return 0;
    const known = done[folder] ?? -1;
    if (known >= 0) return known;
    const text = (this.q.sensitive ? this.prep.folders : this.prep.foldersLower)[folder] ?? "";
    let count = matched(text, p.chars, 0, 0, text.length);
    if (separator && p.chars[count] === "/") count++;
    done[folder] = count;
    return count;
  }

  /** The most plan `p` can score within the basename of `row`, by its packed fields: its pairs of characters as hashed. */
  private bound(row: number, p: Plan): number {
    const at = row * STRIDE;
    const packed = this.rows.packed;
    const atStart = ((packed[at + FIRST] ?? 0) & FIRST_CHAR) === p.first;
    return boundInName(p, atStart, packed[at + STARTS] ?? 0, pairsByHash(packed[at + PAIRS] ?? -1, p));
  }

  /** {@link bound} with the pairs the hash let through held to the row's second filter (pairs64): 8 bytes read, not the basename's. */
  private boundByPairs(row: number, p: Plan): number {
    const at = row * STRIDE;
    const packed = this.rows.packed;
    const atStart = ((packed[at + FIRST] ?? 0) & FIRST_CHAR) === p.first;
    const hashed = pairsByHash(packed[at + PAIRS] ?? -1, p);
    const adjacent = pairsBy64(this.rows.pairs64[2 * row] ?? -1, this.rows.pairs64[2 * row + 1] ?? -1, p, hashed);
    return boundInName(p, atStart, packed[at + STARTS] ?? 0, adjacent);
  }

  /**
   * {@link bound} with the basename's bytes read: which of the query's pairs stand side by side in
   * it (the hash's 32 bits often say yes for a pair that is not there), and what the places of each
   * pair earn (a gap's length, the bonuses): see gapsInBytes; the hashed bound for a basename past
   * ASCII.
   */
  private boundByBytes(row: number, p: Plan): number {
    const at = row * STRIDE;
    const packed = this.rows.packed;
    const atStart = ((packed[at + FIRST] ?? 0) & FIRST_CHAR) === p.first;
    const buf = this.nameBytes(row);
    if (!buf) return boundInName(p, atStart, packed[at + STARTS] ?? 0, pairsByHash(packed[at + PAIRS] ?? -1, p));
    const from = this.nameAt(row);
    const adjacent = gapsInBytes(buf, this.rows.namesOrig, from, this.nameEnd(row, from), p);
    return boundInBytes(p, atStart, packed[at + STARTS] ?? 0, adjacent);
  }

  /** {@link inPath} over the rows of a chunk that hold the query's characters: the rows kept, ascending. */
  inPaths(chunk: Chunk): Int32Array {
    const kept: number[] = [];
    if (!(chunk instanceof BitRows)) {
      for (const row of chunk) if (this.holds(row) && this.inPath(row) === KEEP) kept.push(row);
      return Int32Array.from(kept);
    }
    const { set } = chunk;
    for (let w = 0; w < set.length; w++) {
      for (let m = set[w] ?? 0; m !== 0; m &= m - 1) {
        const row = (w << 5) | (31 - Math.clz32(m & -m));
        if (this.holds(row) && this.inPath(row) === KEEP) kept.push(row);
      }
    }
    return Int32Array.from(kept);
  }

  /** Whether the path holds the query's characters (and its uppercase letters), by the masks alone. */
  holds(row: number): boolean {
    const mask = this.q.whole.mask;
    const upper = this.q.upper;
    return ((this.rows.mask[row] ?? 0) & mask) === mask && ((this.rows.upperMask[row] ?? 0) & upper) === upper;
  }

  /** The last pass: the whole query spread over the path, the weakest kind of match. */
  inPath(row: number): number {
    const p = this.q.whole;
    const len = this.rows.length[row] ?? 0;
    const penalty = PER_PATH_CHAR * len;
    if (IN_PATH + bestScore(p.codes.length) - penalty < this.floor) return KEEP;
    const text = this.texts[this.rows.idOf[row] ?? 0] ?? "";
    if (!p.single) {
      this.wholeDone ??= new Int32Array(this.prep.folders.length).fill(-1);
      const done = this.throughFolder(row, p, this.wholeDone, true);
      // What the directory leaves of the query must lie in the basename: first by its mask.
      const rest = p.suffixMasks[done] ?? 0;
      if (((this.rows.baseMask[row] ?? 0) & rest) !== rest) return DROP;
      if (matched(text, p.chars, done, this.rows.base[row] ?? 0, len) < p.chars.length) return DROP;
    }
    const orig = this.prep.paths[this.rows.idOf[row] ?? 0] ?? "";
    const folder = this.folderState(row, text, orig, p);
    const score = folder ? alignOn(folder, text, orig, this.rows.base[row] ?? 0, len, p.codes) : align(text, orig, 0, len, p.codes);
    this.push(row, IN_PATH + score - penalty);
    return KEEP;
  }

  /** Where the alignment of `p` stands at the end of the directory holding `row` (null at the top), worked out once per directory. */
  private folderState(row: number, text: string, orig: string, p: Plan): AlignState | null {
    const folder = this.rows.folderOf[row] ?? -1;
    if (folder < 0) return null;
    let state = this.folderStates.get(folder);
    if (state) return state;
    state = startState(p.codes.length);
    const base = this.rows.base[row] ?? 0;
    const start = text.indexOf(p.chars[0] ?? "");
    if (start >= 0 && start < base) advance(state, text, orig, start, base, p.codes);
    this.folderStates.set(folder, state);
    return state;
  }

  /** What is known of the directory part of a query with `/`, per directory (see dir-part.ts). */
  private dirPart(dir: Plan): DirPart {
    // Looked up once a search: comparing the query's strings for every row cost more than the rest of the row.
    this.dirKnown ??= dirPartOf(this.prep, dir, this.q.sensitive);
    return this.dirKnown;
  }
}

/**
 * The most a name part of `m` characters scores in a basename that does not start with its first
 * character (the later pass's rows): no segment's bonus.
 */
function laterName(m: number): number {
  return m === 0 ? bestScore(0) : nameBound(m, false, true, true);
}

/** The most {@link exactness} can give a basename of `nameLength` for a query of `m` characters. */
function exactBound(m: number, nameLength: number): number {
  if (nameLength === m) return EXACT_NAME;
  return nameLength > m + 1 ? EXACT_STEM : 0;
}

function exactness(query: string, text: string, base: number): number {
  const after = base + query.length;
  if (after === text.length) return EXACT_NAME;
  return text.charCodeAt(after) === 46 && text.indexOf(".", after + 1) < 0 ? EXACT_STEM : 0;
}
