import { type FileKind, type FileRow, saveFileChanges } from "../store/files.ts";
import { entriesOf, type FileIndex, isEmpty, type RefreshResult } from "./file-index.ts";
import { listFileBatches } from "./list-files.ts";
import { type Prepared, PreparedBuilder } from "./prepared.ts";

/** Changes beyond this many are written in chunks of it, letting queries run in between. */
const SAVE_CHUNK = 4_000;
/** Entries prepared between two yields to the event loop. */
const PREPARE_SLICE = 8_192;

/**
 * Lists the tree again and applies the difference (new entries in, gone ones out) to memory and
 * the store. Does nothing when the last listing is under `refreshEveryMs` old, unless forced; a
 * refresh already running is shared.
 */
export function refreshFileIndex(index: FileIndex, opts: { force?: boolean } = {}): Promise<RefreshResult> {
  if (index.refreshing) return index.refreshing;
  const fresh = index.listedAt > 0 && index.options.now() - index.listedAt < index.options.refreshEveryMs;
  if (fresh && !opts.force) return Promise.resolve({ added: 0, removed: 0, skipped: true, saved: index.saving });
  index.refreshing = relist(index).finally(() => {
    index.refreshing = null;
  });
  return index.refreshing;
}

async function relist(index: FileIndex): Promise<RefreshResult> {
  if (isEmpty(index)) return firstListing(index);
  const before = entriesOf(index);
  const next = new Map<string, FileKind>();
  const added: FileRow[] = [];
  const add = (path: string, kind: FileKind): void => {
    next.set(path, kind);
    if (before.get(path) !== kind) added.push({ path, kind });
  };
  for await (const batch of listFileBatches(index.root, index.options.lister, index.guard)) {
    for (const file of batch) addWithDirectories(next, file, add);
  }
  index.listedAt = index.options.now();
  const removed: string[] = [];
  for (const path of before.keys()) if (!next.has(path)) removed.push(path);
  if (added.length === 0 && removed.length === 0) return { added: 0, removed: 0, skipped: false, saved: index.saving };
  const prepared = await prepareInSlices(next);
  index.entries = next;
  index.prepared = prepared;
  index.shallow = null;
  return { added: added.length, removed: removed.length, skipped: false, saved: persist(index, () => ({ added, removed }), added.length + removed.length) };
}

/**
 * A first listing: everything is new, so it is prepared as it streams in, beside ripgrep, and
 * nothing else is built before the index can answer; the map of entries and the rows to store
 * are made from the prepared list afterwards.
 */
async function firstListing(index: FileIndex): Promise<RefreshResult> {
  const builder = new PreparedBuilder();
  const dirs = new Set<string>();
  // ripgrep lists a directory's files one after another: their parent is compared with the last, not sliced and looked up.
  let lastDir = "";
  for await (const batch of listFileBatches(index.root, index.options.lister, index.guard)) {
    for (const file of batch) {
      builder.add(file, false);
      const parentEnd = file.lastIndexOf("/");
      if (parentEnd === lastDir.length && parentEnd > 0 && file.startsWith(lastDir)) continue;
      if (parentEnd > 0) lastDir = file.slice(0, parentEnd);
      for (let cut = parentEnd; cut > 0; cut = file.lastIndexOf("/", cut - 1)) {
        const dir = file.slice(0, cut);
        if (dirs.has(dir)) break;
        dirs.add(dir);
        builder.add(dir, true);
      }
    }
  }
  index.listedAt = index.options.now();
  if (builder.size === 0) return { added: 0, removed: 0, skipped: false, saved: index.saving };
  const prepared = builder.finish();
  index.entries = null;
  index.prepared = prepared;
  index.shallow = null;
  const rows = (): { added: FileRow[]; removed: string[] } => ({ added: rowsOf(prepared), removed: [] });
  return { added: prepared.count, removed: 0, skipped: false, saved: persist(index, rows, prepared.count) };
}

function rowsOf(prepared: Prepared): FileRow[] {
  return prepared.paths.map((path, i) => ({ path, kind: prepared.dirs[i] === 1 ? "dir" : "file" }));
}

/** Adds a file, and the directories holding it that are not in yet, through `add`. */
function addWithDirectories(entries: Map<string, FileKind>, file: string, add: (path: string, kind: FileKind) => void): void {
  add(file, "file");
  for (let cut = file.lastIndexOf("/"); cut > 0; cut = file.lastIndexOf("/", cut - 1)) {
    const dir = file.slice(0, cut);
    if (entries.has(dir)) return;
    add(dir, "dir");
  }
}

/** Prepares the entries for queries at once. */
export function prepareEntries(entries: Map<string, FileKind>): Prepared {
  const builder = new PreparedBuilder(entries.size);
  for (const [path, kind] of entries) builder.add(path, kind === "dir");
  return builder.finish();
}

/**
 * Prepares the index's entries for queries if that is still to do (after opening it from the
 * store), in slices so that other requests are answered meanwhile.
 */
export function prepareFileIndex(index: FileIndex): Promise<void> {
  if (index.prepared || !index.entries || index.entries.size === 0) return Promise.resolve();
  index.preparing ??= (async () => {
    while (!index.prepared && index.entries && index.entries.size > 0) {
      const entries = index.entries;
      const prepared = await prepareInSlices(entries);
      // A refresh may have replaced the entries (and prepared them) meanwhile.
      if (index.entries === entries) index.prepared ??= prepared;
    }
  })().finally(() => {
    index.preparing = null;
  });
  return index.preparing;
}

/** Prepares the entries a slice at a time, letting queries (on the previous list) run in between. */
async function prepareInSlices(entries: Map<string, FileKind>): Promise<Prepared> {
  const builder = new PreparedBuilder(entries.size);
  for (const [path, kind] of entries) {
    builder.add(path, kind === "dir");
    if (builder.size % PREPARE_SLICE === 0) await Bun.sleep(0);
  }
  return builder.finish();
}

type Changes = { added: readonly FileRow[]; removed: readonly string[] };

/**
 * Writes a refresh's difference (`size` rows, made by `changes` when they are written) to the
 * store: at once when small and nothing is being written, else after what is being written, in
 * chunks with queries let in between.
 */
function persist(index: FileIndex, changes: () => Changes, size: number): Promise<void> {
  if (size <= SAVE_CHUNK && index.pendingSaves === 0) {
    try {
      const { added, removed } = changes();
      saveFileChanges(index.db, index.root, added, removed);
      return Promise.resolve();
    } catch (error) {
      return handled(Promise.reject(error));
    }
  }
  index.pendingSaves++;
  const saved = index.saving.then(async () => {
    await Bun.sleep(0);
    const { added, removed } = changes();
    for (let at = 0; at < removed.length; at += SAVE_CHUNK) {
      saveFileChanges(index.db, index.root, [], removed.slice(at, at + SAVE_CHUNK));
      await Bun.sleep(0);
    }
    for (let at = 0; at < added.length; at += SAVE_CHUNK) {
      saveFileChanges(index.db, index.root, added.slice(at, at + SAVE_CHUNK), []);
      await Bun.sleep(0);
    }
  });
  index.saving = saved
    .catch(() => {})
    .finally(() => {
      index.pendingSaves--;
    });
  return handled(saved);
}

/**
 * `promise`, marked as handled: a background refresh's caller may never look at whether its
 * changes were written (a failed write only means the next start is less warm), and that must
 * not be an unhandled rejection. A caller that awaits it still sees the error.
 */
function handled(promise: Promise<void>): Promise<void> {
  promise.catch(() => {});
  return promise;
}
