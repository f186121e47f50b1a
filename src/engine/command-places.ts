import { join, relative, resolve } from "node:path";
import { isInside } from "../paths.ts";
import type { Word } from "./command-line.ts";
import type { GitRead } from "./command-git.ts";
import type { TreesRead } from "./command-reads.ts";

/** What a walk of a tree found: a protected path in it, more entries than are walked, or nothing. */
export type TreeVerdict = "protected" | "too many" | null;

/** Where a line runs, and how to judge the paths it names. */
export type CommandPlace = {
  cwd: string;
  root: string;
  /** Whether an absolute path is protected (the project's protected paths). */
  isProtected(path: string): boolean;
  /** Where `written` leads from the directory `from` as the kernel walks it (see walkPath); null when it cannot be told. */
  walk(from: string, written: string): string | null;
  /** The absolute paths a glob matches from `dir` now; null when there are too many to judge. */
  glob(dir: string, pattern: string): string[] | null;
  /** The HOME of the command's shell, for `~` and `$HOME`. */
  home: string;
  /** The names in a directory now; null when it cannot be read or holds more than can be judged. */
  entries(dir: string): string[] | null;
  /** Whether an absolute path is a directory or a file now (symlinks followed); null when it is not there. */
  kind(path: string): "dir" | "file" | null;
  /** Whether the tree at a real directory holds a protected path that a reader of all its files (hidden ones when `hidden`) reads. */
  holdsProtected(dir: string, hidden: boolean): TreeVerdict;
  /** The protected files the git repository holding `dir` tracks, and whether each differs on disk from its index entry. */
  trackedProtected(dir: string): { path: string; changed: boolean }[];
};

/** A directory the line may be in: as bash's $PWD says (what `cd ..` starts from) and as it is on disk. */
type Dir = { logical: string; physical: string };

/** Files a redirection or a writer may write to anywhere. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/**
 * Every directory a line may be in at one point (a cd may fail, or run in a pipeline's subshell,
 * so every directory seen so far stays possible), and the judgement of paths written there.
 */
/** The most directories a line is judged from (see cd). */
const MAX_PLACES = 32;

export class Places {
  private readonly dirs: Dir[];

  private constructor(
    private readonly place: CommandPlace,
    private readonly realRoot: string,
    start: Dir,
  ) {
    this.dirs = [start];
  }

  static of(place: CommandPlace): Places | null {
    const physical = place.walk("/", place.cwd);
    if (physical === null) return null;
    return new Places(place, place.walk("/", place.root) ?? place.root, { logical: place.cwd, physical });
  }

  /** Where a written path leads from each directory; null when one walk cannot be told. */
  private reach(written: string): string[] | null {
    const reached: string[] = [];
    for (const dir of this.dirs) {
      const path = this.place.walk(dir.physical, written);
      if (path === null) return null;
      reached.push(path);
    }
    return reached;
  }

  /** A real path as the same path under the root as written (what protected rules are judged on); null when outside. */
  private inProject(real: string): string | null {
    return isInside(real, this.realRoot) ? join(this.place.root, relative(this.realRoot, real)) : null;
  }

  private guarded(real: string): boolean {
    return this.place.isProtected(this.inProject(real) ?? real);
  }

  /** Whether a written path, read the plain way from each directory, names a protected path. */
  private guardedAsWritten(written: string): boolean {
    return this.dirs.some((dir) => this.place.isProtected(resolve(dir.logical, written)));
  }

  /** The HOME of the command's shell. */
  get home(): string {
    return this.place.home;
  }

  /** Whether a path, from every directory the line may be in, is in the project and not protected. */
  inside(written: string): boolean {
    const reached = this.reach(written);
    return reached !== null && reached.every((path) => this.inProject(path) !== null && !this.guarded(path));
  }

  /**
   * writable() for a word: a glob writes to what it matches, or (matching nothing) to a new name in
   * the directory its pattern names, which must then be plainly written. Only a glob in its last
   * part is judged (`src/*.ts`), from the names in that directory.
   */
  writableWord(word: Word): boolean {
    if (word.literal) return this.writable(word.text);
    const slash = word.text.lastIndexOf("/");
    const dir = slash === -1 ? "." : word.text.slice(0, slash) || "/";
    const pattern = word.text.slice(slash + 1);
    if (/[*?[\\]/.test(dir) || this.guardedAsWritten(word.text) || !this.writable(`${dir}/_`)) return false;
    const glob = new Bun.Glob(pattern);
    return this.dirs.every((at) => {
      const base = this.place.walk(at.physical, dir);
      const names = base === null ? null : this.place.entries(base);
      if (base === null || names === null) return false;
      // As bash matches without dotglob: a leading dot only where the pattern names it.
      const matched = names.filter((name) => (pattern.startsWith(".") || !name.startsWith(".")) && glob.match(name));
      return matched.every((name) => {
        const real = this.place.walk(base, name);
        return real !== null && this.inProject(real) !== null && !this.guarded(real);
      });
    });
  }

  /** Whether writing to this path, from every directory the line may be in, stays in the project and off protected paths. */
  writable(written: string): boolean {
    if (HARMLESS_TARGETS.has(written)) return true;
    const reached = this.reach(written);
    if (reached === null || this.guardedAsWritten(written)) return false;
    return reached.every((path) => this.inProject(path) !== null && !this.guarded(path));
  }

  /** Whether a word is, or may be, a protected path (a literal in any of its path-like parts, a glob by what it matches). */
  mayNameProtected(word: Word): boolean {
    if (!word.literal) return this.globMayNameProtected(word.text);
    return pathsIn(word.text).some((written) => {
      const reached = this.reach(written);
      return reached === null || this.guardedAsWritten(written) || reached.some((path) => this.guarded(path));
    });
  }

  /**
   * Whether a word plainly names a protected path: a literal (any of its path-like parts, as
   * written or where it leads), or a glob without variables whose matches now include one.
   * Unlike mayNameProtected, what cannot be told (a variable, a walk that fails) does not count.
   */
  plainlyNamesProtected(word: Word): boolean {
    if (!word.literal) {
      if (/[$~{`]/.test(word.text)) return false;
      if (this.guardedAsWritten(word.text)) return true;
      return this.dirs.some((dir) => (this.place.glob(dir.physical, word.text) ?? []).some((path) => this.guarded(this.place.walk("/", path) ?? path)));
    }
    return pathsIn(word.text).some((written) => this.guardedAsWritten(written) || (this.reach(written) ?? []).some((path) => this.guarded(path)));
  }

  private globMayNameProtected(pattern: string): boolean {
    // A variable, a ~ or a brace may become any path at all.
    if (/[$~{`]/.test(pattern)) return true;
    if (this.guardedAsWritten(pattern)) return true;
    return this.dirs.some((dir) => {
      const matches = this.place.glob(dir.physical, pattern);
      return matches === null || matches.some((path) => this.guarded(this.place.walk("/", path) ?? path));
    });
  }

  /** The real paths a word names now, from every directory: a glob's matches, a literal's ends; null when it cannot be told. */
  private named(word: Word): string[] | null {
    if (word.literal) return this.reach(word.text);
    const found: string[] = [];
    for (const dir of this.dirs) {
      const matches = this.place.glob(dir.physical, word.text);
      if (matches === null) return null;
      found.push(...matches.map((path) => this.place.walk("/", path) ?? path));
    }
    return found;
  }

  /**
   * Why a reader of whole trees may read a protected file: a tree it is given, or (when `here` and
   * none of them is there) the directory it runs in, holds one. Null when none does.
   */
  treeConcern(read: TreesRead): string | null {
    let given = false;
    for (const tree of read.trees) {
      const paths = this.named(tree);
      if (paths === null) return `which files ${tree.text} names cannot be told before it runs`;
      for (const path of paths) {
        const kind = this.place.kind(path);
        if (kind !== null) given = true;
        if (kind !== "dir") continue;
        const verdict = this.place.holdsProtected(path, read.hidden);
        if (verdict) return treeSentence(tree.text, verdict);
      }
    }
    if (given || !read.here) return null;
    for (const dir of this.dirs) {
      const verdict = this.place.holdsProtected(dir.physical, read.hidden);
      if (verdict) return treeSentence(dir.logical, verdict);
    }
    return null;
  }

  /** Why a git command may print a protected file the repository tracks; null when it cannot. */
  gitConcern(read: GitRead): string | null {
    const tracked = this.dirs.flatMap((dir) => this.place.trackedProtected(dir.physical));
    if (tracked.length === 0) return null;
    const name = (path: string) => relative(this.place.root, path) || path;
    const revision = read.scope === "changes" && read.paths.some((word) => (this.named(word) ?? []).every((path) => this.place.kind(path) === null));
    if (read.scope === "history" || revision) return `the repository tracks ${name(tracked[0]?.path ?? "")}, a protected file, which it may print`;
    const changed = tracked.find((file) => file.changed);
    return changed ? `${name(changed.path)}, a protected file the repository tracks, has changed: its diff would print it` : null;
  }

  /**
   * A file the line runs (`./test.sh`, `node build.js`), named by where it is: `./` and its path in
   * the project, or its absolute path outside it. Null when it depends on the directory the line is in.
   */
  fileKey(written: string): string | null {
    const reached = this.reach(written);
    if (reached === null || new Set(reached).size !== 1) return null;
    const path = reached[0] ?? "";
    const inside = this.inProject(path);
    if (inside === null) return path;
    const rel = relative(this.place.root, inside);
    return rel === "" ? "." : `./${rel}`;
  }

  /**
   * A cd to a plainly named directory: true, and its possible ends added, when it stays in the
   * project. bash resolves the name against $PWD first (so `link/..` is `.`), and falls back to
   * the name as the kernel walks it; both are taken.
   */
  cd(written: string): boolean {
    // Every cd may fail, so every directory seen stays possible: past a few dozen, a line's
    // places are not worth judging (each walk lstat()s every part, synchronously).
    if (this.dirs.length * 2 > MAX_PLACES) return false;
    const next: Dir[] = [];
    for (const dir of this.dirs) {
      const logical = resolve(dir.logical, written);
      const canonical = this.place.walk("/", logical);
      const walked = this.place.walk(dir.physical, written);
      if (canonical === null || walked === null) return false;
      next.push({ logical, physical: canonical }, { logical: walked, physical: walked });
    }
    if (next.some((dir) => this.inProject(dir.physical) === null || this.guarded(dir.physical))) return false;
    for (const dir of next) {
      if (!this.dirs.some((d) => d.logical === dir.logical && d.physical === dir.physical)) this.dirs.push(dir);
    }
    return true;
  }
}

function treeSentence(tree: string, verdict: "protected" | "too many"): string {
  if (verdict === "protected") return `it reads every file under ${tree}, which holds protected files`;
  return `it reads every file under ${tree}, more than can be checked for protected ones`;
}

/** The parts of a word that may be paths: the word, what follows `=`, `:` or `@`, and a short option's value. */
function pathsIn(text: string): string[] {
  const parts = [text];
  for (const mark of ["=", ":", "=@"]) {
    const at = text.indexOf(mark);
    if (at !== -1) parts.push(text.slice(at + mark.length));
  }
  if (text.startsWith("@")) parts.push(text.slice(1));
  if (/^-[^-]/.test(text)) parts.push(text.slice(2));
  return parts.filter((part) => part !== "");
}
