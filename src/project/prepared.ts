import { charBit } from "./char-bit.ts";
import type { Chunk } from "./char-bits.ts";
import type { Rows } from "./rows.ts";

/**
 * A list of paths made ready for fuzzy matching once. Most entries are turned down by a keystroke
 * from typed arrays alone, without touching their strings (scattered in memory, so slow to visit):
 * a bitmask of the characters each path and each basename holds (a query whose characters are not
 * all in it cannot match: one AND), each basename's first character, where it starts, the lengths.
 */
export type Prepared = {
  readonly count: number;
  /** The paths as listed, `/`-separated, relative to the root. */
  readonly paths: readonly string[];
  /** The same, lowercased (same length, so offsets hold in both). */
  readonly lower: readonly string[];
  /** 1 where the entry is a directory. */
  readonly dirs: Uint8Array;
  /** Where each path's last segment starts. */
  readonly base: Int32Array;
  readonly length: Int32Array;
  /** The lowercased first character of each basename. */
  readonly baseFirst: Uint16Array;
  readonly mask: Int32Array;
  readonly baseMask: Int32Array;
  /** The uppercase letters of each path, for a case-sensitive query (smart case). */
  readonly upperMask: Int32Array;
  /**
   * The directory holding each entry, an index into `folders` (-1 at the top): entries of one
   * directory share its part of a path match, worked out once a query.
   */
  readonly folderOf: Int32Array;
  /** Each directory's path as written and lowercased. */
  readonly folders: readonly string[];
  readonly foldersLower: readonly string[];
  /**
   * The directory above each directory (-1 at the top), listed before it: a directory's match of a
   * query's directory part goes on from its parent's (see dir-part.ts).
   */
  readonly folderParent: Int32Array;
  /**
   * What each directory's path adds to its parent's (its own name, after a `/` unless at the top),
   * lowercased and as written, as UTF-16 units from folderNames.at[folder] to at[folder + 1]:
   * written as the directories are met, where their paths are at hand, and read by dir-part.ts
   * instead of the directories' strings (slices of the listed paths, slow to read).
   */
  readonly folderNames: FolderNames;
  /**
   * Candidate sets of the last queries typed, each extending the one before it: a query that
   * extends one of them only has to look at that one's candidates.
   */
  trail: { query: string; kept: Kept }[];
  /** The directory part of the last query with `/`, worked out per directory (see fuzzy.ts). */
  dirPart: DirPart | null;
  /** The rows in the order a search reads them, made by the first search (see penalty-order.ts). */
  rows: Rows | null;
};

/**
 * The rows a query kept as candidates (every match among them), by the pass of the search that
 * reads them (see fuzzy.ts), each a list of chunks of rows (positions in `rows`, ascending within a
 * chunk; the last pass's may be a bitset): a pass the search did not need hands its rows on
 * unread, and a query typed after it reads them only if it needs that pass.
 */
export type Kept = { first: Int32Array[]; later: Chunk[]; last: Chunk[] };

/**
 * For one directory part of a query with `/`, matched case-sensitively or not (the whole query
 * decides): per directory, how much of it a greedy scan finds, whether that is all of it (`fits`,
 * at the directory's index + 1; at 0 the top, outside any directory), whether a segment of its path
 * starts with all of it (`leads`, -1 not yet known, see dir-part.ts; null when not worked out), and its alignment
 * score (NaN not yet known).
 */
export type DirPart = { query: string; sensitive: boolean; done: Int32Array; fits: Uint8Array; leads: Int8Array | null; scores: Float64Array };

export type FolderNames = { at: Int32Array; lower: Uint16Array; orig: Uint16Array };

/** Prepares `paths` (with `dirs[i]` 1 for a directory) for {@link rank} in fuzzy.ts. */
export function prepare(paths: readonly string[], dirs: Uint8Array): Prepared {
  const builder = new PreparedBuilder(paths.length);
  for (let i = 0; i < paths.length; i++) builder.add(paths[i] ?? "", dirs[i] === 1);
  return builder.finish();
}

/**
 * Builds a {@link Prepared} an entry at a time, so the work can be done as a listing streams in
 * (or in slices between queries) rather than all at once at the end.
 */
export class PreparedBuilder {
  private count = 0;
  private readonly paths: string[] = [];
  // Filled by push: in JSC a large `new Array(n)` is sparse storage, slow to read.
  private readonly lower: string[] = [];
  /** The rows whose `lower` is still the path as written (ASCII with uppercase letters), lowercased on first use. */
  private readonly unlowered: number[] = [];
  private dirs: Uint8Array;
  private base: Int32Array;
  private length: Int32Array;
  private baseFirst: Uint16Array;
  private mask: Int32Array;
  private baseMask: Int32Array;
  private upperMask: Int32Array;
  private folderOf: Int32Array;
  private readonly folders: string[] = [];
  private readonly foldersLower: string[] = [];
  private readonly folderParents: number[] = [];
  private readonly folderIds = new Map<string, number>();
  private namesAt: number[] = [0];
  private namesLower = new Uint16Array(1024);
  private namesOrig = new Uint16Array(1024);
  private lastFolder = "";
  private lastFolderId = -1;

  constructor(capacity = 1024) {
    const n = Math.max(16, capacity);
    this.dirs = new Uint8Array(n);
    this.base = new Int32Array(n);
    this.length = new Int32Array(n);
    this.baseFirst = new Uint16Array(n);
    this.mask = new Int32Array(n);
    this.baseMask = new Int32Array(n);
    this.upperMask = new Int32Array(n);
    this.folderOf = new Int32Array(n);
  }

  /** How many entries were added. */
  get size(): number {
    return this.count;
  }

  /** Adds an entry: its path (relative, `/`-separated) and whether it is a directory. */
  add(path: string, dir: boolean): void {
    if (this.count === this.dirs.length) this.grow();
    const i = this.count++;
    // One pass from the end over the path as written: the basename's mask, then the whole
    // path's, and the uppercase letters.
    let bits = 0;
    let upper = 0;
    let base = 0;
    let inBase = true;
    let ascii = true;
    for (let at = path.length - 1; at >= 0; at--) {
      const code = path.charCodeAt(at);
      if (code === SLASH && inBase) {
        inBase = false;
        base = at + 1;
        this.baseMask[i] = bits;
      }
      if (code < 128) {
        bits |= ASCII_BITS[code] ?? 0;
        upper |= UPPER_BITS[code] ?? 0;
      } else {
        bits |= charBit(path.charAt(at).toLowerCase().charCodeAt(0));
        ascii = false;
      }
    }
    if (inBase) this.baseMask[i] = bits;
    this.paths.push(path);
    if (ascii) {
      // Lowercased when a search first reads it (a third of this method's time): ASCII lowercases a character at a time.
      this.lower.push(path);
      if (upper !== 0) this.unlowered.push(i);
      const first = path.charCodeAt(base) || 0;
      this.baseFirst[i] = first >= 65 && first <= 90 ? first + 32 : first;
    } else {
      const low = lowercase(path);
      this.lower.push(low);
      this.baseFirst[i] = low.charCodeAt(base) || 0;
    }
    this.dirs[i] = dir ? 1 : 0;
    this.base[i] = base;
    // lowercase() keeps the length.
    this.length[i] = path.length;
    this.mask[i] = bits;
    this.upperMask[i] = upper;
    this.folderOf[i] = this.folderId(path, base - 1);
  }

  /** The prepared list of the entries added. */
  finish(): Prepared {
    const n = this.count;
    const { lower, unlowered } = this;
    return {
      count: n,
      paths: this.paths,
      get lower(): readonly string[] {
        for (const i of unlowered.splice(0)) lower[i] = (lower[i] ?? "").toLowerCase();
        return lower;
      },
      dirs: this.dirs.subarray(0, n),
      base: this.base.subarray(0, n),
      length: this.length.subarray(0, n),
      baseFirst: this.baseFirst.subarray(0, n),
      mask: this.mask.subarray(0, n),
      baseMask: this.baseMask.subarray(0, n),
      upperMask: this.upperMask.subarray(0, n),
      folderOf: this.folderOf.subarray(0, n),
      folders: this.folders,
      foldersLower: this.foldersLower,
      folderParent: Int32Array.from(this.folderParents),
      folderNames: { at: Int32Array.from(this.namesAt), lower: this.namesLower, orig: this.namesOrig },
      trail: [],
      dirPart: null,
      rows: null,
    };
  }

  /** The id of path[0, end), the directory holding an entry (-1 for none). */
  private folderId(path: string, end: number): number {
    if (end <= 0) return -1;
    // Entries come grouped by directory, mostly: a comparison instead of a slice and a lookup.
    if (end === this.lastFolder.length && path.startsWith(this.lastFolder)) return this.lastFolderId;
    const folder = path.slice(0, end);
    const id = this.idOfFolder(folder);
    this.lastFolder = folder;
    this.lastFolderId = id;
    return id;
  }

  /** The id of a directory, its parents' made first (so that a parent comes before its children). */
  private idOfFolder(folder: string): number {
    const known = this.folderIds.get(folder);
    if (known !== undefined) return known;
    const cut = folder.lastIndexOf("/");
    const parent = cut > 0 ? this.idOfFolder(folder.slice(0, cut)) : -1;
    const id = this.folders.length;
    this.folderIds.set(folder, id);
    const lower = lowercase(folder);
    this.folders.push(folder);
    this.foldersLower.push(lower);
    this.folderParents.push(parent);
    this.addFolderName(folder, lower, Math.max(0, cut));
    return id;
  }

  /** Appends folder[from..] to folderNames, lowercased and as written. */
  private addFolderName(folder: string, lower: string, from: number): void {
    const at = this.namesAt[this.namesAt.length - 1] ?? 0;
    const end = at + folder.length - from;
    if (end > this.namesLower.length) {
      const size = Math.max(end, 2 * this.namesLower.length);
      const grown = (old: Uint16Array) => {
        const next = new Uint16Array(size);
        next.set(old);
        return next;
      };
      this.namesLower = grown(this.namesLower);
      this.namesOrig = grown(this.namesOrig);
    }
    for (let i = from, k = at; i < folder.length; i++, k++) {
      this.namesOrig[k] = folder.charCodeAt(i);
      this.namesLower[k] = lower.charCodeAt(i);
    }
    this.namesAt.push(end);
  }

  private grow(): void {
    const n = this.dirs.length * 2;
    const grown = <T extends Uint8Array | Uint16Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(n);
      next.set(old);
      return next;
    };
    this.dirs = grown(this.dirs, (k) => new Uint8Array(k));
    this.base = grown(this.base, (k) => new Int32Array(k));
    this.length = grown(this.length, (k) => new Int32Array(k));
    this.baseFirst = grown(this.baseFirst, (k) => new Uint16Array(k));
    this.mask = grown(this.mask, (k) => new Int32Array(k));
    this.baseMask = grown(this.baseMask, (k) => new Int32Array(k));
    this.upperMask = grown(this.upperMask, (k) => new Int32Array(k));
    this.folderOf = grown(this.folderOf, (k) => new Int32Array(k));
  }
}

/** The code of `/`. */
export const SLASH = 47;

export { charBit };

/** charBit of each ASCII character, uppercase letters as their lowercase. */
const ASCII_BITS = Int32Array.from({ length: 128 }, (_, code) => charBit(code >= 65 && code <= 90 ? code + 32 : code));
const UPPER_BITS = Int32Array.from({ length: 128 }, (_, code) => (code >= 65 && code <= 90 ? 1 << (code - 65) : 0));

/** The bitmask of a lowercase string. */
export function maskOf(text: string): number {
  let bits = 0;
  for (let i = 0; i < text.length; i++) bits |= charBit(text.charCodeAt(i));
  return bits;
}

/** A bit per uppercase ASCII letter in `text`. */
export function upperMaskOf(text: string): number {
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) bits |= 1 << (code - 65);
  }
  return bits;
}

/** Lowercases keeping the length, so offsets into the result are offsets into the original. */
export function lowercase(text: string): string {
  const low = text.toLowerCase();
  if (low.length === text.length) return low;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const one = text.charAt(i).toLowerCase();
    out += one.length === 1 ? one : text.charAt(i);
  }
  return out;
}
