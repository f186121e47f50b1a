import { dirname, join, relative } from "node:path";
import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import {
  hasPreImage,
  lstatOrNull,
  markTurn,
  type PreImage,
  readPreImage,
  recordPreImage,
  recordStamp,
  type Stamp,
  stampOf,
  trimPreImages,
  UNDO_MAX_FILE,
  UNDO_TURN_MAX_BYTES,
} from "../store/undo.ts";
import { readBlobs } from "./git-index.ts";
import type { FollowedProjects } from "./followed-projects.ts";
import { cleanBlob, isDirRel } from "./file-stat.ts";
import { CACHE_MAX_BYTES, CACHE_MAX_FILE, type Change, type ProjectFiles } from "./project-files.ts";
import type { ToolResultRecord } from "./records.ts";

/** How many paths a command's "cannot be undone" note names before it counts the rest. */
const NOTE_PATHS = 20;
/** The most earlier content read from git at once. */
const BATCH_BYTES = 64 * 1024 * 1024;

export { type Restored, restoreTurn, type Skipped, type Undone } from "./undo-restore.ts";

/**
 * Keeps, for one turn, each file's content from before the turn first changed it: files the edit
 * tools name (beforeChange), and files a command created, changed or deleted (aroundCommand). After
 * each change it stamps the file as the turn left it, so that undo never overwrites a later edit.
 *
 * A command's pre-images come from what is known without copying the project first: the project's
 * own git objects for files clean in its index, and a bounded in-memory copy of small other files
 * (ProjectFiles). What a command changed that neither holds is said in the command's result.
 */
export class TurnUndo {
  /** Paths the edit tools named and have not stamped yet (they stamp right after writing). */
  private readonly unstamped = new Set<string>();
  private readonly notes = new Map<string, string>();
  /** Bytes of earlier content this turn has kept so far. */
  private kept = 0;
  /** Whether the turn recorded any pre-image (its end then keeps the store's bounds). */
  private keptAny = false;

  constructor(
    private readonly db: Db,
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly root: string,
    /** The engine's followed projects: this turn's project among them. */
    private readonly projects: FollowedProjects,
    private readonly maxTurnBytes = UNDO_TURN_MAX_BYTES,
  ) {}

  /** Before an edit tool changes the path; `held`: its text as an editor holds it, kept instead of the disk's. */
  beforeChange(path: string, held?: string): void {
    this.projects.tell(this.root, (files) => files.beforeWrite());
    if (!hasPreImage(this.db, this.sessionId, this.turnId, path)) {
      this.keep(held === undefined ? readPreImage(path) : heldPreImage(path, held));
      this.keepDirsMadeFor(path);
      trimPreImages(this.db, this.sessionId);
    }
    this.unstamped.add(path);
  }

  /** The directories inside the project a write to `path` will make (they are not there yet): undo removes them again once empty. */
  private keepDirsMadeFor(path: string): void {
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const rel = relative(this.root, dir);
      if (!rel || rel.startsWith("..") || lstatOrNull(dir)) return;
      this.keep({ path: `${dir}/`, existed: false, content: null, mode: null });
    }
  }

  /** Records a pre-image within the turn's bound: past it, only that the content was not kept. */
  private keep(image: PreImage, stamp?: Stamp): PreImage {
    const size = image.content?.length ?? 0;
    const bounded: PreImage =
      size > 0 && this.kept + size > this.maxTurnBytes
        ? { ...image, content: null, missing: `the turn's undo data passed ${this.maxTurnBytes / 1024 / 1024} MiB, so no more was kept` }
        : image;
    this.kept += bounded.content?.length ?? 0;
    recordPreImage(this.db, this.sessionId, this.turnId, bounded, stamp);
    this.keptAny = true;
    return bounded;
  }

  async aroundCommand<T>(run: () => Promise<T>, callId?: string): Promise<T> {
    this.projects.sweepLegacySnapshots();
    const files = this.projects.filesOf(this.root);
    let window: Change[];
    try {
      window = files.begin();
    } catch (error) {
      // The command runs all the same, only not undoably.
      const why = `What this command changes cannot be undone: ${errorMessage(error)}.`;
      if (callId) this.notes.set(callId, why);
      this.markSafely(why);
      return run();
    }
    const index = files.gitIndex();
    try {
      return await run();
    } finally {
      const lost = await this.recordSafely(files, window, index);
      if (callId && lost.length > 0) this.notes.set(callId, lost.join("\n"));
      if (unrecorded(lost)) this.markSafely(lost.join(" "));
    }
  }

  /** The tool's result with what undo cannot restore of its command said, for the model. */
  annotate(result: ToolResultRecord): ToolResultRecord {
    const note = this.notes.get(result.callId);
    if (!note) return result;
    this.notes.delete(result.callId);
    return { ...result, output: `${result.output}\n\n${note}` };
  }

  /** Right after an edit tool wrote the path: what the person saves later must not count as the turn's. */
  afterChange(path: string, held?: string): void {
    this.unstamped.delete(path);
    if (held === undefined) this.stampSafely(path);
    else this.stampHeld(path, held);
    this.projects.tell(this.root, (files) => files.afterWrite(path));
  }

  /** When a tool returns: whatever it named and did not stamp itself is stamped now. */
  afterTool(): void {
    this.stampPending();
  }

  /**
   * At the turn's end. A file still unstamped is left so, never stamped this late (what the person
   * saved meanwhile would count as the turn's): undo then leaves it alone.
   */
  finish(): void {
    this.unstamped.clear();
    // A turn that kept nothing has nothing to trim (and a write transaction at every turn's end
    // cost a warm editor's next first answer about 4 ms).
    if (!this.keptAny) return;
    try {
      trimPreImages(this.db, this.sessionId);
    } catch {
      // the next turn trims
    }
  }

  private stampPending(): void {
    for (const path of this.unstamped) this.stampSafely(path);
    this.unstamped.clear();
  }

  /** A stamp that cannot be taken is left out, and undo then leaves that file alone (the safe side). */
  private stampSafely(path: string): void {
    try {
      recordStamp(this.db, this.sessionId, this.turnId, path, stampOf(path));
    } catch {
      // left unstamped on purpose
    }
  }

  /**
   * A file written to its other holder (an editor, which saves it or not) is stamped as the text
   * written: undo restores it once the disk holds that text, and leaves it alone while it does not.
   */
  private stampHeld(path: string, text: string): void {
    const bytes = Buffer.from(text);
    const hash = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    try {
      recordStamp(this.db, this.sessionId, this.turnId, path, { existed: true, size: bytes.length, mtime: null, hash });
    } catch {
      // left unstamped on purpose
    }
  }

  /** The turn's undo then says that what a command did was not recorded at all. */
  private markSafely(why: string): void {
    try {
      markTurn(this.db, this.sessionId, this.turnId, why);
    } catch {
      // the command's result says it all the same
    }
  }

  /** The command's result stands whatever happens here: a failure to record is said beside it. */
  private async recordSafely(files: ProjectFiles, window: Change[], index: ReturnType<ProjectFiles["gitIndex"]>): Promise<string[]> {
    try {
      const changes = files.end(window);
      if (files.tooLarge) return [TOO_LARGE];
      const unwatched = files.takeUnwatched();
      const said = unwatched.length > 0 ? [`lembas may not watch ${unwatched.slice(0, NOTE_PATHS).join(", ")} (permission denied): what commands change there cannot be undone.`] : [];
      // Stamped now, as the command left them: what is saved while git is read is not the command's.
      const stamps = new Map(changes.map((c) => [c.rel, isDirRel(c.rel) ? dirStamp(c) : stampOf(join(this.root, c.rel))] as const));
      return [...said, ...(await this.record(files, changes, index, stamps))];
    } catch (error) {
      return [`${NOT_RECORDED}: ${errorMessage(error)}.`];
    }
  }

  /** Records the command's changes; returns the note lines for what cannot be restored. */
  private async record(
    files: ProjectFiles,
    changes: Change[],
    index: ReturnType<ProjectFiles["gitIndex"]>,
    stamps: ReadonlyMap<string, Stamp>,
  ): Promise<string[]> {
    if (changes.length === 0) return [];
    const fresh = changes.filter((c) => !hasPreImage(this.db, this.sessionId, this.turnId, join(this.root, c.rel)));
    const freshPaths = new Set(fresh.map((c) => c.rel));
    const again = changes.filter((c) => !freshPaths.has(c.rel));
    const lost: string[] = [];
    const groups = [...batches(fresh)];
    if (groups.length === 0) groups.push([]);
    for (const [i, batch] of groups.entries()) {
      const wanted = new Map<string, string>();
      for (const c of batch) {
        const sha = c.before && !c.kept && c.before.size <= UNDO_MAX_FILE ? cleanBlob(c.rel, c.before, index) : null;
        if (sha) wanted.set(c.rel, sha);
      }
      const blobs = files.gitDir && wanted.size > 0 ? await readBlobs(files.gitDir, [...new Set(wanted.values())]) : new Map<string, Uint8Array>();
      // One transaction a batch, each row written once with its stamp: the store grows by what changed.
      this.db.transaction(() => {
        for (const c of batch) {
          const path = join(this.root, c.rel);
          const sha = wanted.get(c.rel);
          const image = this.keep(preImageOf(path, c, sha ? (blobs.get(sha) ?? null) : null), stamps.get(c.rel) ?? stampOf(path));
          if (!isDirRel(c.rel) && (image.missing || image.refused)) lost.push(`${c.rel} (${image.missing ?? image.refused})`);
        }
        if (i < groups.length - 1) return;
        for (const c of again) {
          const path = join(this.root, c.rel);
          recordStamp(this.db, this.sessionId, this.turnId, path, stamps.get(c.rel) ?? stampOf(path));
        }
        trimPreImages(this.db, this.sessionId);
      })();
    }
    if (lost.length === 0) return [];
    const named = lost.slice(0, NOTE_PATHS).join(", ");
    const more = lost.length > NOTE_PATHS ? ` and ${lost.length - NOTE_PATHS} more` : "";
    return [`Undo cannot restore what this command did to: ${named}${more}.`];
  }
}

const TOO_LARGE = "This project has too many files for lembas to follow what commands change: what this command changed cannot be undone.";
const NOT_RECORDED = "What this command changed could not be recorded, so it cannot be undone";

/** Whether a command's note says that nothing of it was recorded (rather than some files). */
function unrecorded(lost: readonly string[]): boolean {
  return lost.some((line) => line === TOO_LARGE || line.startsWith(NOT_RECORDED));
}

/** Changes in groups of at most BATCH_BYTES of earlier content, so blobs read from git stay bounded in memory. */
function* batches(changes: Change[]): Generator<Change[]> {
  let batch: Change[] = [];
  let bytes = 0;
  for (const c of changes) {
    const size = c.before?.size ?? 0;
    if (batch.length > 0 && bytes + size > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(c);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** How a command left a directory: there or not (what it holds is stamped file by file). */
function dirStamp(change: Change): Stamp {
  return { existed: change.after !== null, size: null, mtime: null, hash: null };
}

/** The pre-image of a file an editor holds: its text there, the disk's mode (none for a file not yet on disk). */
function heldPreImage(path: string, text: string): PreImage {
  const disk = lstatOrNull(path);
  const content = Buffer.from(text);
  if (content.length > UNDO_MAX_FILE) return { path, existed: true, content: null, mode: disk ? disk.mode & 0o7777 : null, missing: "it is larger than 32 MiB" };
  return { path, existed: true, content, mode: disk ? disk.mode & 0o7777 : null };
}

/** A command's pre-image of one path: absent before, or its bytes from the cache or from git. */
function preImageOf(path: string, change: Change, blob: Uint8Array | null): PreImage {
  const before = change.before;
  if (isDirRel(change.rel)) return { path, existed: before !== null, content: null, mode: before ? before.mode & 0o7777 : null, ...(change.refused ? { refused: change.refused } : {}) };
  if (change.refused) return { path, existed: before !== null, content: null, mode: before ? before.mode & 0o7777 : null, refused: change.refused };
  if (!before) return { path, existed: false, content: null, mode: null };
  const mode = before.mode & 0o7777;
  if (!before.regular) return { path, existed: true, content: null, mode, missing: "it was not a regular file" };
  const content = change.kept ?? (blob && blob.length === before.size ? blob : null);
  if (content) return { path, existed: true, content, mode };
  if (before.size > UNDO_MAX_FILE) return { path, existed: true, content: null, mode, missing: "it was larger than 32 MiB" };
  const why =
    before.size > CACHE_MAX_FILE
      ? `its earlier content was not kept: not clean in git, and larger than ${CACHE_MAX_FILE / 1024} KiB`
      : `its earlier content was not kept: not clean in git, and past the ${CACHE_MAX_BYTES / 1024 / 1024} MiB kept of other files`;
  return { path, existed: true, content: null, mode, missing: why };
}
