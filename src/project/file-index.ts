import { join, resolve } from "node:path";
import type { Db } from "../store/db.ts";
import { type FileKind, loadFiles, saveFileChanges } from "../store/files.ts";
import { HALF_LIFE_MS } from "./frecency.ts";
import { defaultLister, type FileLister } from "./list-files.ts";
import type { Prepared } from "./prepared.ts";
import { judgeFound, type PathGuard, pathGuard, type ProtectedPaths, protectedPaths, protectionJudge } from "./protected.ts";

export type { FileKind } from "../store/files.ts";

/** One result of the @-file picker: `path` relative to the root, `/`-separated. */
export type FileEntry = { path: string; kind: FileKind };

/** How an index lists its tree, how often, and how frecency decays. */
export type FileIndexOptions = {
  /** Who lists the tree: ripgrep when on PATH (the default), else the TypeScript walker. */
  lister?: FileLister;
  /** A refresh lists the tree again at most this often unless forced. */
  refreshEveryMs?: number;
  /** Frecency's half-life. */
  halfLifeMs?: number;
  /** The clock for refreshes and frecency (tests move it). */
  now?: () => number;
  /** Left out of the index, names and all (the built-in list when not given): the picker offers no protected path. */
  protectedPaths?: ProtectedPaths;
};

/**
 * The file index of one root in this process: the entries as stored (a second process, or this one
 * after a restart, starts from them), the prepared list queries run on (rebuilt when a refresh
 * changes something), and the frecency of recent uses.
 */
export type FileIndex = {
  readonly db: Db;
  /** Absolute. */
  readonly root: string;
  readonly options: Required<FileIndexOptions>;
  /** What listings of the tree leave out: protected paths. */
  readonly guard: PathGuard;
  /**
   * Path to kind, as stored. Null after a first listing until something needs it (see
   * {@link entriesOf}): a map of every path costs time the first answer need not wait for.
   */
  entries: Map<string, FileKind> | null;
  prepared: Prepared | null;
  /** The preparation of entries opened from the store, while it runs. */
  preparing: Promise<void> | null;
  /** When this process last listed the tree; 0 when it never has. */
  listedAt: number;
  refreshing: Promise<RefreshResult> | null;
  /** Large changes are written in chunks after the refresh returns; each waits for the one before. */
  saving: Promise<void>;
  pendingSaves: number;
  frecency: Frecency | null;
  /** The empty query's entries after the recent ones (shallowest first), worked out once per list. */
  shallow: FileEntry[] | null;
};

/** The frecency of recent uses as a search needs it: a bonus per path, and the paths most used first. */
export type Frecency = { loadedAt: number; boost: Map<string, number>; recent: string[] };

/** What a refresh found: entries added and removed; `skipped` when it was too soon to list again. */
export type RefreshResult = { added: number; removed: number; skipped: boolean; saved: Promise<void> };

const REFRESH_EVERY_MS = 3_000;

/** Opens the index of `root` from what is stored (empty when it was never listed). */
export function openFileIndex(db: Db, root: string, options: FileIndexOptions = {}): FileIndex {
  const absolute = resolve(root);
  const rules = options.protectedPaths ?? protectedPaths([], []);
  // The root may be reached through a symlink, and the config and state dirs named by their real paths.
  const judge = judgeFound(absolute, absolute, protectionJudge(absolute, rules));
  const guard = pathGuard((path) => judge(path) !== null);
  const entries = new Map<string, FileKind>();
  const stale: string[] = [];
  for (const row of loadFiles(db, absolute)) {
    if (guard.leaveOut(join(absolute, row.path))) stale.push(row.path);
    else entries.set(row.path, row.kind);
  }
  // An older version listed protected paths: they go from the store too.
  if (stale.length > 0) saveFileChanges(db, absolute, [], stale);
  return {
    db,
    root: absolute,
    options: {
      lister: options.lister ?? defaultLister(),
      refreshEveryMs: options.refreshEveryMs ?? REFRESH_EVERY_MS,
      halfLifeMs: options.halfLifeMs ?? HALF_LIFE_MS,
      now: options.now ?? Date.now,
      protectedPaths: rules,
    },
    guard,
    entries,
    prepared: null,
    preparing: null,
    listedAt: 0,
    refreshing: null,
    saving: Promise.resolve(),
    pendingSaves: 0,
    frecency: null,
    shallow: null,
  };
}

/** The index's entries, derived from the prepared list when a first listing left them for later. */
export function entriesOf(index: FileIndex): Map<string, FileKind> {
  if (index.entries) return index.entries;
  const entries = new Map<string, FileKind>();
  const prepared = index.prepared;
  if (prepared) for (let i = 0; i < prepared.count; i++) entries.set(prepared.paths[i] ?? "", prepared.dirs[i] === 1 ? "dir" : "file");
  index.entries = entries;
  return entries;
}

/** Whether nothing is known of the tree: never listed, nothing stored. */
export function isEmpty(index: FileIndex): boolean {
  return (index.prepared?.count ?? 0) === 0 && (index.entries?.size ?? 0) === 0;
}
