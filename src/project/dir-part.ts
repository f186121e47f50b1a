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
