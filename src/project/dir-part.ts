import { alignUnits, NO_MATCH } from "./align.ts";
import type { DirPart, Prepared } from "./prepared.ts";
import type { Plan } from "./query-plan.ts";

/**
 * The directory part of a query with `/` (what comes before its last `/`), worked out over every
 * directory at once: which hold its characters in order. Kept on the prepared list, since typing
 * the name part keeps the directory part the same, and handed to the sort of rows, so that the
 * entries of a directory that cannot hold it never become a pass's candidates.
 */
export function dirPartOf(prep: Prepared, dir: Plan, sensitive: boolean): DirPart {
  const known = prep.dirPart;
  if (known?.query === dir.query && known.sensitive === sensitive) return known;
  const { at } = prep.folderNames;
  const names = sensitive ? prep.folderNames.orig : prep.folderNames.lower;
  const count = prep.folders.length;
  const want = dir.codes.length;
  const codes = dir.codes;
  // Parents come before their children.
  const done = new Int32Array(count);
  const fits = new Uint8Array(count + 1);
  // The top (no directory) holds only an empty directory part.
  fits[0] = want === 0 ? 1 : 0;
  for (let folder = 0; folder < count; folder++) {
    // A directory's greedy scan is its parent's, gone on over its own name: each name read once.
    const parent = prep.folderParent[folder] ?? -1;
    let found = parent < 0 ? 0 : (done[parent] ?? 0);
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
  const fresh = { query: dir.query, sensitive, done, fits, scores: new Float64Array(count).fill(Number.NaN) };
  prep.dirPart = fresh;
  return fresh;
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
