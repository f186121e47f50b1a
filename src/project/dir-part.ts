import { alignUnits, bestScore, NO_MATCH } from "./align.ts";
import { charBit, type DirPart, type Prepared } from "./prepared.ts";
import type { Plan } from "./query-plan.ts";

/**
 * The directory part of a query with `/` (what comes before its last `/`), worked out over every
 * directory at once: which hold its characters in order. Kept on the prepared list, since typing
 * the name part keeps the directory part the same, and handed to the sort of rows, so that the
 * entries of a directory that cannot hold it never become a pass's candidates. With it, which
 * directories have a segment starting with the whole directory part (`leads`, found when a search
 * asks, see leadsOf): their alignment is the best any can get, and every other's is at least
 * LEAD_LOSS below it (see folderMost).
 */
export function dirPartOf(prep: Prepared, dir: Plan, sensitive: boolean): DirPart {
  const known = prep.dirPart;
  if (known?.query === dir.query && known.sensitive === sensitive) return known;
  const { at } = prep.folderNames;
  const names = sensitive ? prep.folderNames.orig : prep.folderNames.lower;
  const count = prep.folders.length;
  const want = dir.codes.length;
  const codes = dir.codes;
  const masks = ownMasksOf(prep);
  const bits = Int32Array.from(codes, bitOf);
  // Parents come before their children.
  const done = new Int32Array(count);
  const fits = new Uint8Array(count + 1);
  // A part holding `/` may start in a parent and go on in a child: left to the alignment.
  const leads = want > 0 && !dir.chars.includes("/") ? new Int8Array(count).fill(-1) : null;
  // The top (no directory) holds only an empty directory part.
  fits[0] = want === 0 ? 1 : 0;
  for (let folder = 0; folder < count; folder++) {
    // A directory's greedy scan is its parent's, gone on over its own name: each name read once.
    const parent = prep.folderParent[folder] ?? -1;
    let found = parent < 0 ? 0 : (done[parent] ?? 0);
    // A name without the next character leaves the scan where its parent's stood: most are not read.
    if (found < want && ((masks[folder] ?? 0) & (bits[found] ?? 0)) === 0) {
      done[folder] = found;
      continue;
    }
    let next = codes[found] ?? -1;
    const end = at[folder + 1] ?? 0;
    for (let i = at[folder] ?? 0; i < end && found < want; i++) {
      if (names[i] !== next) continue;
      found++;
      next = codes[found] ?? -1;
    }
    done[folder] = found;
    fits[folder + 1] = found === want ? 1 : 0;
  }
  const fresh = { query: dir.query, sensitive, done, fits, leads, scores: new Float64Array(count).fill(Number.NaN) };
  prep.dirPart = fresh;
  return fresh;
}

/** The bit (charBit) a unit of a name or query has, an ASCII uppercase letter as its lowercase. */
function bitOf(code: number): number {
  return charBit(code >= 65 && code <= 90 ? code + 32 : code);
}

const ownMasks = new WeakMap<Prepared, Int32Array>();

/**
 * Per directory, the bits of the characters of its own name (bitOf, as written and lowercased:
 * a unit either way compares with the part's), made by the first query with a directory part.
 */
function ownMasksOf(prep: Prepared): Int32Array {
  const known = ownMasks.get(prep);
  if (known) return known;
  const { at, lower, orig } = prep.folderNames;
  const masks = new Int32Array(prep.folders.length);
  for (let folder = 0; folder < masks.length; folder++) {
    let bits = 0;
    const end = at[folder + 1] ?? 0;
    for (let i = at[folder] ?? 0; i < end; i++) bits |= bitOf(lower[i] ?? 0) | bitOf(orig[i] ?? 0);
    masks[folder] = bits;
  }
  ownMasks.set(prep, masks);
  return masks;
}

// Where a directory's path is put together from its names; grown as needed.
let lowerPath = new Uint16Array(256);
let origPath = new Uint16Array(256);
const chain: number[] = [];

/**
 * The alignment of the directory part `dir` over the whole path of `folder` (-1: the top), as
 * align.ts's `align` gives it over the directory's string: read from its names and its parents'
 * (typed arrays), not from the string, a slice of a listed path that cost about 30 ns a character.
 */
export function alignFolderPath(prep: Prepared, folder: number, dir: Plan, sensitive: boolean): number {
  if (folder < 0) return dir.codes.length === 0 ? 0 : NO_MATCH;
  const { at, lower, orig } = prep.folderNames;
  chain.length = 0;
  let length = 0;
  for (let f = folder; f >= 0; f = prep.folderParent[f] ?? -1) {
    chain.push(f);
    length += (at[f + 1] ?? 0) - (at[f] ?? 0);
  }
  if (length > lowerPath.length) {
    lowerPath = new Uint16Array(2 * length);
    origPath = new Uint16Array(2 * length);
  }
  let k = 0;
  for (let c = chain.length - 1; c >= 0; c--) {
    const f = chain[c] ?? 0;
    const from = at[f] ?? 0;
    const to = at[f + 1] ?? 0;
    for (let i = from; i < to; i++, k++) {
      lowerPath[k] = lower[i] ?? 0;
      origPath[k] = orig[i] ?? 0;
    }
  }
  return alignUnits(sensitive ? origPath : lowerPath, origPath, k, dir.codes);
}

/**
 * How far below the best score (bestScore) the alignment of a directory part over a directory
 * without a segment starting with all of it falls at least: its first character either lands
 * where no segment starts (a bonus of at most BONUS_BOUNDARY, doubled: 4 lost), or at a segment's
 * start followed by a gap before the part's end (the character after the gap earns GAP_START and
 * at most BONUS_SEGMENT, where a run's earns BONUS_SEGMENT: 3 lost); every other character earns
 * at most what a run from a segment's start gives it.
 */
export const LEAD_LOSS = 3;

/**
 * Whether a segment of `folder`'s path starts with the whole directory part (`codes`, holding no
 * `/`): its parent's answer, else a look at its own name; kept in the part's `leads` (-1: not yet
 * known), since only the directories of the rows a search reads are asked, a few thousand of
 * tens of thousands.
 */
function leadsOf(prep: Prepared, leads: Int8Array, folder: number, codes: Int32Array, sensitive: boolean): boolean {
  const known = leads[folder] ?? 0;
  if (known >= 0) return known === 1;
  const parent = prep.folderParent[folder] ?? -1;
  const { at, lower, orig } = prep.folderNames;
  const yes = (parent >= 0 && leadsOf(prep, leads, parent, codes, sensitive)) || leadsIn(sensitive ? orig : lower, orig, at[folder] ?? 0, at[folder + 1] ?? 0, parent < 0, codes);
  leads[folder] = yes ? 1 : 0;
  return yes;
}

/**
 * Whether a segment starting in names[from, to) (a directory's own name, after its `/`; `top`: the
 * path's start is at `from`) starts with `codes`, its first character earning a segment's bonus
 * (not a delimiter: those earn less). The part holds no `/`, so it cannot reach past the name.
 */
function leadsIn(names: Uint16Array, orig: Uint16Array, from: number, to: number, top: boolean, codes: Int32Array): boolean {
  const m = codes.length;
  const first = codes[0] ?? -1;
  for (let i = from; i + m <= to; i++) {
    if (names[i] !== first || !(i === from ? top : names[i - 1] === SLASH) || DELIMITERS.has(orig[i] ?? 0)) continue;
    let j = 1;
    while (j < m && names[i + j] === codes[j]) j++;
    if (j === m) return true;
  }
  return false;
}

const SLASH = 47;
/** What align.ts counts as a separator or a word's delimiter: after a `/` they earn BONUS_BOUNDARY, not BONUS_SEGMENT. */
const DELIMITERS = new Set([47, 46, 95, 45, 32]);

/**
 * The most the directory part `dir` scores over `folder` (one that `fits`): the best any directory
 * gets when a segment of it starts with the part, else LEAD_LOSS less; the best when not known.
 */
export function folderMost(prep: Prepared, part: DirPart, folder: number, dir: Plan): number {
  const best = bestScore(dir.codes.length);
  if (!part.leads || folder < 0) return best;
  return leadsOf(prep, part.leads, folder, dir.codes, part.sensitive) ? best : best - LEAD_LOSS;
}

/**
 * The alignment of the directory part `dir` over `folder` (-1: the top), kept in the part's
 * scores: the best score without an alignment when a segment of the directory starts with it
 * (its characters in one run from a segment's start earn every bonus there is).
 */
export function folderScore(prep: Prepared, part: DirPart, folder: number, dir: Plan): number {
  if (folder < 0) return dir.codes.length === 0 ? 0 : NO_MATCH;
  if (part.leads && leadsOf(prep, part.leads, folder, dir.codes, part.sensitive)) return bestScore(dir.codes.length);
  const known = part.scores[folder] ?? Number.NaN;
  if (!Number.isNaN(known)) return known;
  const score = alignFolderPath(prep, folder, dir, part.sensitive);
  part.scores[folder] = score;
  return score;
}
