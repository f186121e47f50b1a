import { type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { realOr } from "../real-path.ts";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { gitDirOf, type IndexSnapshot, readIndex } from "./git-index.ts";
import { dirStatOf, isClean, isDirRel, sameSeen, type Seen, statOf } from "./file-stat.ts";
import { EACCES, ENOMEM, ENOSPC, IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_IGNORED, IN_ISDIR, IN_MOVE_SELF, IN_MOVED_FROM, IN_MOVED_TO, IN_Q_OVERFLOW, Inotify } from "./inotify.ts";

/**
 * One path a sync found different: how it was at the last sync and how it is now (null: absent).
 * `refused`: why undo must leave it alone whatever it holds. A directory's `rel` ends with a slash
 * (isDirRel), and it is a change only when it came or went: what it holds is said file by file.
 */
export type Change = { rel: string; before: Seen | null; after: Seen | null; kept: Uint8Array | null; refused?: string };

export const UNFOLLOWED =
  "lembas was not following its directory when the command started, so what it held before is not known for sure and undo leaves it as it is";
export const OVERLAPPED =
  "it changed while another command ran in the project at the same time (another session's), so whose change it was cannot be told and undo leaves it as it is";
export const MOVED_IN =
  "it was moved in from outside the project, so undo leaves it where it is (it may be the only copy)";

/** The most bytes of file content kept in memory to undo commands with, per project. */
export const CACHE_MAX_BYTES = 24 * 1024 * 1024;
/** Files larger than this are never kept in that cache. */
export const CACHE_MAX_FILE = 256 * 1024;
/** Past this many directories a project is not watched (inotify watches are shared by all the person's programs): each sync walks it. */
export const MAX_DIRS = 16_000;
/** Past this many files a project is not followed at all: its commands are not undoable (and said so). */
export const MAX_FILES = 300_000;

/**
 * Follows one project's files, so that what a command changed is known at the cost of what it
 * changed: one walk at first use, then inotify names the paths that changed (elsewhere, or after an
 * event overflow, a walk compares every file's stat). Keeps, for files whose content may be needed
 * to undo a command (not clean in git's index), a bounded in-memory copy of the small ones.
 * Everything under the root is followed, ignored files too, but `.git` directories.
 */
export class ProjectFiles {
  private readonly seen = new Map<string, Seen>();
  /** The directories under the root as last seen (the root not among them). */
  private readonly seenDirs = new Map<string, Seen>();
  private readonly cache = new Map<string, { seen: Seen; bytes: Uint8Array }>();
  private cacheBytes = 0;
  private readonly windows = new Set<Change[]>();
  private readonly dirs = new Map<string, number>();
  private readonly dirOf = new Map<number, string>();
  private watch: Inotify | null = null;
  private started = false;
  /** Set when the project is past the bounds: commands are then not followed. */
  tooLarge = false;
  readonly gitDir: string | null;
  private index: IndexSnapshot | null = null;
  private readonly base: string;
  private readonly useInotify: boolean;
  private readonly maxFiles: number;
  private readonly maxDirs: number;
  private readonly excluded = new Set<string>();
  /** Directories inotify refused to watch (permission denied): what changes in them is not seen. */
  private readonly unwatched = new Set<string>();
  private unsaid: string[] = [];

  /**
   * `inotify: false` never watches, each sync walks (as where there is no inotify). `exclude`:
   * directories never followed (lembas's own state dir, whose database changes all the time).
   * `maxFiles`, `maxDirs`: the bounds (MAX_FILES, MAX_DIRS).
   */
  constructor(
    readonly root: string,
    opts: { inotify?: boolean; exclude?: readonly string[]; maxFiles?: number; maxDirs?: number } = {},
  ) {
    this.maxFiles = opts.maxFiles ?? MAX_FILES;
    this.maxDirs = opts.maxDirs ?? MAX_DIRS;
    this.gitDir = gitDirOf(root);
    this.useInotify = opts.inotify ?? true;
    // Watches are made on the real directory: inotify does not follow a symlinked root.
    this.base = realOr(root);
    for (const dir of opts.exclude ?? []) {
      const rel = relative(this.base, realOr(dir));
      if (rel && !rel.startsWith("..") && !isAbsolute(rel)) this.excluded.add(rel.split(sep).join("/"));
    }
  }

  /** The directories found unwatchable since the last call, to be said once. */
  takeUnwatched(): string[] {
    return this.unsaid.splice(0);
  }

  /** Whether files are followed by inotify (else each sync walks the project). */
  get watching(): boolean {
    return this.watch !== null;
  }

  /**
   * Opens a window on the project for one command: what changed before it is taken in first (the
   * edit tools', the person's), so it is not counted as the command's.
   */
  begin(): Change[] {
    this.dispatch(this.sync());
    const window: Change[] = [];
    this.windows.add(window);
    return window;
  }

  /**
   * What changed while the window was open, one change a path (as it was at the start, as it is
   * now). What changed while another window was open too (another session's command) cannot be
   * told apart: it is marked refused. The person's own edits during a command cannot be told from
   * the command's at all (undo's trash keeps what it replaces).
   */
  end(window: Change[]): Change[] {
    this.dispatch(this.sync());
    this.windows.delete(window);
    const byPath = new Map<string, Change>();
    for (const change of window) {
      const first = byPath.get(change.rel);
      const refused = first?.refused ?? change.refused;
      byPath.set(change.rel, first ? { ...first, after: change.after, ...(refused ? { refused } : {}) } : change);
    }
    return [...byPath.values()].filter((c) => (isDirRel(c.rel) ? (c.before === null) !== (c.after === null) : c.before !== null || c.after !== null));
  }

  /** Before an edit tool writes: what changed until now goes to the open windows (another session's commands). */
  beforeWrite(): void {
    if (!this.started || this.windows.size === 0) return;
    this.dispatch(this.sync());
  }

  /** After an edit tool wrote `path`: the write is taken in, but in no window (its own turn undoes it), nor the directories it made for it. */
  afterWrite(path: string): void {
    if (!this.started || this.windows.size === 0) return;
    const rel = relative(this.base, join(realOr(dirname(path)), basename(path))).split(sep).join("/");
    this.dispatch(this.sync().filter((c) => c.rel !== rel && !(isDirRel(c.rel) && rel.startsWith(c.rel))));
  }

  private dispatch(changes: Change[]): void {
    if (this.windows.size > 1) {
      const marked = changes.map((c) => ({ ...c, refused: c.refused ?? OVERLAPPED }));
      for (const window of this.windows) window.push(...marked);
      return;
    }
    for (const window of this.windows) window.push(...changes);
  }

  /**
   * Brings the view up to date and returns what changed since the last sync. The first sync walks
   * the project and returns nothing.
   */
  private sync(): Change[] {
    if (!this.started) {
      this.start();
      return [];
    }
    if (this.tooLarge) return [];
    const changes = this.watch ? this.fromEvents(this.watch) : this.rescan();
    // A sync reads at most the cache's size: many changes at once (an install) do not read them all.
    let budget = CACHE_MAX_BYTES;
    for (const change of changes) {
      if (isDirRel(change.rel)) continue;
      change.kept = change.before ? this.cached(change.rel, change.before) : null;
      this.remember(change, budget > 0);
      if (change.after?.regular && change.after.size <= CACHE_MAX_FILE) budget -= change.after.size;
    }
    // The bound holds as the project grows, not only at the first walk.
    if (this.seen.size > this.maxFiles) {
      this.giveUp();
      return [];
    }
    return changes;
  }

  /** The git index as it is now (read again only when it changed). */
  gitIndex(): IndexSnapshot | null {
    if (!this.gitDir) return null;
    this.index = readIndex(this.gitDir, this.index);
    return this.index;
  }

  /** The content kept for a file as it was when `seen`, if any. */
  private cached(rel: string, seen: Seen): Uint8Array | null {
    const hit = this.cache.get(rel);
    return hit && sameSeen(hit.seen, seen) ? hit.bytes : null;
  }

  close(): void {
    this.watch?.close();
    this.watch = null;
  }

  private start(): void {
    this.started = true;
    this.watch = this.useInotify ? Inotify.open() : null;
    const index = this.gitIndex();
    const found = new Map<string, Seen>();
    const dirs = new Map<string, Seen>();
    if (!this.walk("", found, dirs)) {
      this.giveUp();
      return;
    }
    for (const [rel, seen] of found) this.seen.set(rel, seen);
    for (const [rel, seen] of dirs) this.seenDirs.set(rel, seen);
    // The most recently changed files first: they are the likeliest to be changed again.
    const candidates = [...found].filter(([rel, seen]) => seen.regular && seen.size <= CACHE_MAX_FILE && !isClean(rel, seen, index));
    candidates.sort((a, b) => b[1].mtimeSec - a[1].mtimeSec || b[1].mtimeNsec - a[1].mtimeNsec);
    for (const [rel, seen] of candidates) {
      if (this.cacheBytes + seen.size > CACHE_MAX_BYTES) continue;
      this.keep(rel, seen, false);
    }
  }

  /** Walks a directory into `found` (its files) and `dirs`, watching each directory before listing it; false past the bounds. */
  private walk(dir: string, found: Map<string, Seen>, dirs: Map<string, Seen>): boolean {
    const abs = dir ? join(this.base, dir) : this.base;
    const self = dir ? dirStatOf(abs) : null;
    if (self) dirs.set(dir, self);
    if (this.watch && !this.dirs.has(dir)) {
      const wd = this.dirs.size < this.maxDirs ? this.watch.add(abs) : -ENOSPC;
      if (wd >= 0) {
        // A directory already watched under another name (moved) gets its watch back: it is this name's now.
        this.unmap(wd);
        this.dirs.set(dir, wd);
        this.dirOf.set(wd, dir);
      } else if (wd === -ENOSPC || wd === -ENOMEM) {
        // The watch limit reached: from now on each sync walks the project.
        this.unwatchAll();
      } else if (wd === -EACCES && !this.unwatched.has(dir)) {
        this.unwatched.add(dir);
        this.unsaid.push(dir);
      }
    }
    let names: Dirent[];
    try {
      names = readdirSync(abs, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of names) {
      if (entry.name === ".git") continue;
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (this.excluded.has(rel)) continue;
      if (entry.isDirectory()) {
        if (!this.walk(rel, found, dirs)) return false;
        continue;
      }
      const seen = statOf(join(this.base, rel));
      if (seen) found.set(rel, seen);
      if (found.size > this.maxFiles) return false;
    }
    return true;
  }

  /** Past the bounds: nothing is followed any more, and what was kept is let go. */
  private giveUp(): void {
    this.tooLarge = true;
    this.unwatchAll();
    this.seen.clear();
    this.seenDirs.clear();
    this.cache.clear();
    this.cacheBytes = 0;
  }

  /** A new inotify instance, no watches yet: the next walk makes them. */
  private rewatch(): void {
    this.unwatchAll();
    this.watch = Inotify.open();
  }

  private unmap(wd: number): void {
    const dir = this.dirOf.get(wd);
    if (dir === undefined) return;
    this.dirOf.delete(wd);
    if (this.dirs.get(dir) === wd) this.dirs.delete(dir);
  }

  private unwatchAll(): void {
    this.watch?.close();
    this.watch = null;
    this.dirs.clear();
    this.dirOf.clear();
  }

  /**
   * Every file's stat compared with what was seen. After an overflow, `watched` are the directories
   * that were watched until then: a file elsewhere may have changed unseen before the window
   * opened, so what was seen of it is no before-state undo can trust.
   */
  private rescan(watched?: ReadonlySet<string>): Change[] {
    const found = new Map<string, Seen>();
    const dirs = new Map<string, Seen>();
    if (!this.walk("", found, dirs)) {
      this.giveUp();
      return [];
    }
    const changes = this.dirChanges([...this.seenDirs.keys(), ...dirs.keys()], (rel) => dirs.get(rel) ?? null);
    if (watched) for (const change of changes) if (!watched.has(parentOf(change.rel.slice(0, -1)))) change.refused = UNFOLLOWED;
    for (const [rel, before] of this.seen) {
      const after = found.get(rel) ?? null;
      if (after && sameSeen(before, after)) continue;
      const change: Change = { rel, before, after, kept: null };
      if (watched && !watched.has(parentOf(rel))) change.refused = UNFOLLOWED;
      changes.push(change);
    }
    for (const [rel, after] of found) if (!this.seen.has(rel)) changes.push({ rel, before: null, after, kept: null });
    return changes;
  }

  /** The paths inotify named, stat'ed again; new directories walked, gone ones' files looked at. */
  private fromEvents(watch: Inotify): Change[] {
    const suspects = new Set<string>();
    const newDirs: string[] = [];
    const goneDirs: string[] = [];
    const events = watch.drain();
    // A rename inside the project says both halves in the same read; a MOVED_TO alone came from outside.
    const movedFrom = new Set(events.filter((e) => e.mask & IN_MOVED_FROM).map((e) => e.cookie));
    const movedIn = new Set<string>();
    for (const event of events) {
      if (event.mask & IN_Q_OVERFLOW) {
        // Events were lost, among them which directories went and came back: the watches are
        // made again from nothing, and every file compared.
        const watched = new Set(this.dirs.keys());
        this.rewatch();
        return this.rescan(watched);
      }
      const dir = this.dirOf.get(event.wd);
      if (dir === undefined) continue;
      if (event.mask & IN_IGNORED) {
        this.unmap(event.wd);
        continue;
      }
      if (event.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        if (event.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) goneDirs.push(dir);
        continue;
      }
      if (event.name === ".git" || event.name === "") continue;
      const rel = dir ? `${dir}/${event.name}` : event.name;
      if (this.excluded.has(rel)) continue;
      if (event.mask & IN_MOVED_TO && !movedFrom.has(event.cookie)) movedIn.add(rel);
      if (event.mask & IN_ISDIR) {
        if (event.mask & (IN_CREATE | IN_MOVED_TO)) newDirs.push(rel);
        if (event.mask & (IN_DELETE | IN_MOVED_FROM)) goneDirs.push(rel);
        continue;
      }
      suspects.add(rel);
    }
    const dirSuspects = new Set<string>();
    for (const gone of goneDirs) this.forgetDir(gone, suspects, dirSuspects);
    const found = new Map<string, Seen>();
    const dirs = new Map<string, Seen>();
    for (const dir of newDirs) {
      if (!this.walk(dir, found, dirs)) {
        this.giveUp();
        return [];
      }
    }
    for (const rel of found.keys()) suspects.add(rel);
    const changes = this.dirChanges([...dirSuspects, ...dirs.keys()], (rel) => dirs.get(rel) ?? dirStatOf(join(this.base, rel)));
    for (const change of changes) if (change.after && underAny(change.rel.slice(0, -1), movedIn)) change.refused = MOVED_IN;
    for (const rel of suspects) {
      const before = this.seen.get(rel) ?? null;
      const after = found.get(rel) ?? statOf(join(this.base, rel));
      if (before === null && after === null) continue;
      if (before && after && sameSeen(before, after)) continue;
      const change: Change = { rel, before, after, kept: null };
      if (after && underAny(rel, movedIn)) change.refused = MOVED_IN;
      changes.push(change);
    }
    return changes;
  }

  /** A directory gone (deleted, moved away): its watches go, its files and directories are looked at again. */
  private forgetDir(dir: string, suspects: Set<string>, dirSuspects: Set<string>): void {
    const prefix = `${dir}/`;
    for (const [path, wd] of this.dirs) {
      if (path !== dir && !path.startsWith(prefix)) continue;
      this.watch?.remove(wd);
      this.dirs.delete(path);
      this.dirOf.delete(wd);
    }
    for (const rel of this.seen.keys()) if (rel.startsWith(prefix)) suspects.add(rel);
    for (const rel of this.seenDirs.keys()) if (rel === dir || rel.startsWith(prefix)) dirSuspects.add(rel);
  }

  /** The directories among `rels` that came or went since last seen (`now`: its stat now, null when none); what is seen of them is brought up to date. */
  private dirChanges(rels: Iterable<string>, now: (rel: string) => Seen | null): Change[] {
    const changes: Change[] = [];
    for (const rel of new Set(rels)) {
      const before = this.seenDirs.get(rel) ?? null;
      const after = now(rel);
      if (after) this.seenDirs.set(rel, after);
      else this.seenDirs.delete(rel);
      if ((before === null) !== (after === null)) changes.push({ rel: `${rel}/`, before, after, kept: null });
    }
    return changes;
  }

  private remember(change: Change, read: boolean): void {
    if (change.after) this.seen.set(change.rel, change.after);
    else this.seen.delete(change.rel);
    this.drop(change.rel);
    if (change.after && read) this.keep(change.rel, change.after, true);
  }

  /**
   * Keeps a small file's content. At the first walk the cache fills until it is full; later, what
   * changed most recently pushes out what was kept longest.
   */
  private keep(rel: string, seen: Seen, evict: boolean): void {
    if (!seen.regular || seen.size > CACHE_MAX_FILE) return;
    if (!evict && this.cacheBytes + seen.size > CACHE_MAX_BYTES) return;
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(join(this.base, rel));
    } catch {
      return;
    }
    // Changed while read: the stat no longer matches what the bytes are.
    const now = statOf(join(this.base, rel));
    if (!now || !sameSeen(now, seen) || bytes.length !== seen.size) return;
    for (const [old, hit] of this.cache) {
      if (this.cacheBytes + bytes.length <= CACHE_MAX_BYTES) break;
      this.cache.delete(old);
      this.cacheBytes -= hit.bytes.length;
    }
    this.cache.set(rel, { seen, bytes });
    this.cacheBytes += bytes.length;
  }

  private drop(rel: string): void {
    const hit = this.cache.get(rel);
    if (!hit) return;
    this.cache.delete(rel);
    this.cacheBytes -= hit.bytes.length;
  }
}

function parentOf(rel: string): string {
  const at = rel.lastIndexOf("/");
  return at < 0 ? "" : rel.slice(0, at);
}

/** Whether the path is one of `tops` or inside one of them. */
function underAny(rel: string, tops: ReadonlySet<string>): boolean {
  if (tops.size === 0) return false;
  for (let at = rel.length; at > 0; at = rel.lastIndexOf("/", at - 1)) {
    if (tops.has(rel.slice(0, at))) return true;
  }
  return false;
}
