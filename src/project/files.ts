import { resolve } from "node:path";
import type { Db } from "../store/db.ts";
import { entriesOf, type FileEntry, type FileIndex, type FileIndexOptions, type Frecency, isEmpty, openFileIndex } from "./file-index.ts";
import { prepareEntries, prepareFileIndex, refreshFileIndex } from "./file-refresh.ts";
import { boostOf, HALF_LIFE_MS, MAX_BOOST, recentUses, recordUse } from "./frecency.ts";
import { rank } from "./fuzzy.ts";
import { recentThenShallow } from "./empty-query.ts";

export type { FileEntry, FileIndex, FileIndexOptions, FileKind, RefreshResult } from "./file-index.ts";
export { entriesOf, openFileIndex } from "./file-index.ts";
export { prepareFileIndex, refreshFileIndex } from "./file-refresh.ts";

/** A search of the @-file picker: `limit` defaults to 20 and is clamped to 1–50. */
export type FileSearch = { query: string; limit?: number };

/** The protocol's limits for `_lembas/files/search`: 20 results by default, at most 50. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
/** Longer queries are cut: no path needs more, and matching costs grow with the length. */
const MAX_QUERY = 256;
/** Other processes' uses are picked up this often. */
const FRECENCY_TTL_MS = 1_000;

/**
 * The entries of the index best matching `query`, best first, at most `limit` (default 20,
 * clamped to 1–50). Fuzzy: the query's characters in order; basename matches above path matches,
 * a basename starting with the query first; case-insensitive unless the query has an uppercase
 * letter; a query with `/` matches across segments; frecency orders close matches. An empty query
 * gives the recently used entries, then the shallowest.
 */
export function searchFiles(index: FileIndex, search: FileSearch): FileEntry[] {
  const limit = clampLimit(search.limit);
  const query = search.query.trim().slice(0, MAX_QUERY);
  if (isEmpty(index)) return [];
  const prepared = (index.prepared ??= prepareEntries(entriesOf(index)));
  const frecency = frecencyOf(index);
  if (!query) return recentThenShallow(index, frecency, limit);
  return rank(prepared, query, { limit, boost: frecency.boost, maxBoost: MAX_BOOST }).map(({ id }) => ({
    path: prepared.paths[id] ?? "",
    kind: prepared.dirs[id] === 1 ? "dir" : "file",
  }));
}

/** `limit` as a whole number in 1–50, 20 when absent. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

function frecencyOf(index: FileIndex): Frecency {
  const now = index.options.now();
  if (index.frecency && now - index.frecency.loadedAt < FRECENCY_TTL_MS) return index.frecency;
  const uses = recentUses(index.db, index.root, now, index.options.halfLifeMs);
  index.frecency = {
    loadedAt: now,
    boost: new Map(uses.map((use) => [use.path, boostOf(use.score)])),
    recent: uses.map((use) => use.path),
  };
  return index.frecency;
}

/** How many roots' indexes a process keeps in memory at once. */
export const MAX_OPEN_INDEXES = 16;

/** The file indexes of one process, one per root, over one database. */
export type FileIndexes = {
  /** The index of `root`, opened from the store on first use. */
  get(root: string): FileIndex;
  /**
   * Searches the index of `root`: listing the tree first when nothing is known of it, otherwise
   * answering at once and refreshing in the background when the listing is stale.
   */
  search(root: string, search: FileSearch): Promise<FileEntry[]>;
  /** Counts a use (attached, read, edited) of `path`, absolute or relative to `root`. */
  recordUse(root: string, path: string, now?: number): void;
};

/** The file indexes over `db`, every one with `options`. */
export function createFileIndexes(db: Db, options: FileIndexOptions = {}): FileIndexes {
  const indexes = new Map<string, FileIndex>();
  const get = (root: string): FileIndex => {
    const absolute = resolve(root);
    let index = indexes.get(absolute);
    if (index) {
      // Most recently used last: the map's order is the eviction order.
      indexes.delete(absolute);
    } else {
      index = openFileIndex(db, absolute, options);
    }
    indexes.set(absolute, index);
    // A long-running service keeps the prepared lists of the roots searched lately, not of every root
    // it ever saw (each is in the store, and opens again warm).
    while (indexes.size > MAX_OPEN_INDEXES) {
      const oldest = indexes.keys().next().value;
      if (oldest === undefined) break;
      indexes.delete(oldest);
    }
    return index;
  };
  return {
    get,
    async search(root, search) {
      const index = get(root);
      if (index.listedAt === 0 && isEmpty(index)) await refreshFileIndex(index, { force: true });
      // A failed background refresh leaves the index as it was; the next search tries again.
      else void refreshFileIndex(index).catch(() => {});
      await prepareFileIndex(index);
      return searchFiles(index, search);
    },
    recordUse(root, path, now) {
      const absolute = resolve(root);
      recordUse(db, absolute, path, now ?? (options.now ?? Date.now)(), options.halfLifeMs ?? HALF_LIFE_MS);
      // The use counts in the indexes of the directories above and below `root` too.
      for (const index of indexes.values()) index.frecency = null;
    },
  };
}
