import { statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";
import { realPath } from "../real-path.ts";

/**
 * Secrets: env files (every name starting `.env`), private keys, `.ssh`, and the files tools keep
 * their credentials in (npm's, PyPI's, netrc, git's store, pgpass, cloud credentials and service
 * accounts' JSON, Java keystores). Name globs, matched
 * against the name of the path and of every directory above it, so a directory protects what is
 * in it. Listings and searches leave their names out too, not only their content. Matched
 * regardless of case: on a case-insensitive filesystem (macOS) `.ENV` opens `.env`.
 */
export const SECRET_NAMES = [
  ".env*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*", "*.p12", "*.pfx", ".ssh",
  ".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".pgpass", "credentials*.json", "*service-account*.json", "*.keystore", "*.jks",
] as const;

/** Protected but not secret: git's repository, `.git` itself and everything in it (any case, as the secrets). */
const GUARDED_NAMES = [".git"] as const;

/**
 * Protected but not secret, from the project's root: the settings files that name its hooks and
 * rules, and the hook scripts they run. A hook the person approved runs unasked; a model that could
 * rewrite its script (or its settings) unasked would run any command through it.
 */
export const GUARDED_GLOBS = [".agent/settings*.json", ".claude/settings*.json", ".agent/hooks/**", ".claude/hooks/**"] as const;

/**
 * How a path is protected. Both kinds ask before any tool touches them, in every mode, and no
 * search shows their content; a secret's name is left out of listings as well.
 */
export type Protection = "secret" | "protected";

/** A verdict on one absolute path. */
export type Judge = (path: string) => Protection | null;

export type ProtectedPaths = {
  /** Name globs of secrets (the built-in list, lower case), matched against the name in lower case. */
  secret: Bun.Glob[];
  /** Name globs of the built-in protected names (`.git`), matched in lower case too. */
  guarded: Bun.Glob[];
  /** config.yaml's name globs (no `/`), matched as written (lower-cased where case is folded). */
  names: Bun.Glob[];
  /** Whether config.yaml's globs ignore case, as the file system does (macOS, Windows). */
  foldCase: boolean;
  /**
   * config.yaml's globs with a slash, matched against the path relative to the project root; one
   * ending `/**` also matches the directory itself, which protects it and (through it) what it holds.
   */
  globs: Bun.Glob[];
  /** What a text must start and end with to match each glob of the lists above, in their order: most need no glob matched. */
  shapes: { secret: Shape[]; guarded: Shape[]; names: Shape[]; globs: Shape[] };
  /** lembas's config and state dirs (absolute, normalised, each as given and as it really is): secrets, with all they hold. */
  dirs: string[];
};

/**
 * The built-in list plus config.yaml's `protected:`, and the config and state dirs (resolved
 * against the working directory when relative; a trailing slash or a symlink on the way is the same dir).
 */
export function protectedPaths(extra: readonly string[], dirs: readonly string[], foldCase = FOLDS_CASE): ProtectedPaths {
  const glob = (pattern: string): Bun.Glob => new Bun.Glob(pattern);
  const fold = (text: string): string => (foldCase ? text.toLowerCase() : text);
  const slashed = [...GUARDED_GLOBS, ...extra.filter((p) => p.includes("/"))].map(fold);
  const dirsOfGlobs = slashed.filter((p) => p.endsWith("/**")).map((p) => p.slice(0, -3)).filter((p) => p !== "" && p !== "**");
  const forms = dirs.flatMap((dir) => [resolve(dir), realPath(dir)]);
  return {
    secret: SECRET_NAMES.map(glob),
    guarded: GUARDED_NAMES.map(glob),
    names: extra.filter((p) => !p.includes("/")).map((p) => glob(fold(p))),
    foldCase,
    globs: [...slashed, ...dirsOfGlobs].map(glob),
    shapes: {
      secret: SECRET_NAMES.map(shapeOf),
      guarded: GUARDED_NAMES.map(shapeOf),
      names: extra.filter((p) => !p.includes("/")).map((p) => shapeOf(fold(p))),
      globs: [...slashed, ...dirsOfGlobs].map(shapeOf),
    },
    dirs: [...new Set(forms)],
  };
}

/** The text before a glob's first special character and after its last: every text it matches starts and ends with them. */
export type Shape = { start: string; end: string };

const SPECIAL = /[*?[\]{}\\!]/;

export function shapeOf(pattern: string): Shape {
  // Negated, or a form the glob may normalise: no shape to go by.
  if (pattern.startsWith("!") || pattern.startsWith("./") || pattern.startsWith("/")) return { start: "", end: "" };
  const first = pattern.search(SPECIAL);
  if (first < 0) return { start: pattern, end: "" };
  let last = pattern.length - 1;
  while (!SPECIAL.test(pattern.charAt(last))) last--;
  // `**/` and `/**` may match no directory at all, the slash beside them included.
  return { start: pattern.slice(0, first).replace(/\/$/, ""), end: pattern.slice(last + 1).replace(/^\//, "") };
}

/** Whether any of `globs` (of the shapes `shapes`) matches `text`, each glob's shape looked at first. */
function anyMatches(globs: readonly Bun.Glob[], shapes: readonly Shape[], text: string): boolean {
  for (let i = 0; i < globs.length; i++) {
    const shape = shapes[i];
    if (shape && (!text.startsWith(shape.start) || !text.endsWith(shape.end))) continue;
    if (globs[i]?.match(text)) return true;
  }
  return false;
}

/**
 * Whether an absolute path is protected, judged relative to the project root: by its name and the
 * names above it, and (on disk) by being in a directory of the project that is a git directory.
 */
export function isProtected(path: string, root: string, rules: ProtectedPaths): boolean {
  return protection(path, root, rules) !== null || inGitDirectory(path, root);
}

/**
 * Whether the path is in a directory of the project that is a git directory by another name than
 * `.git` (HEAD, objects/ and refs/ in it, as git recognises one), or would make one: a HEAD beside
 * objects/ and refs/, an objects/ or refs/ beside a HEAD. git reads the config of such a
 * directory when it runs inside it, and its core.fsmonitor, hooks and pager are commands.
 */
export function inGitDirectory(path: string, root: string): boolean {
  for (let at = path; at !== root && isInside(at, root); at = dirname(at)) {
    const parent = dirname(at);
    const name = FOLDS_CASE ? basename(at).toLowerCase() : basename(at);
    if (kindOf(join(at, "HEAD")) === "file" && kindOf(join(at, "objects")) === "dir" && kindOf(join(at, "refs")) === "dir") return true;
    if (name === (FOLDS_CASE ? "head" : "HEAD") && kindOf(join(parent, "objects")) === "dir" && kindOf(join(parent, "refs")) === "dir") return true;
    if ((name === "objects" || name === "refs") && kindOf(join(parent, "HEAD")) === "file") return true;
  }
  return false;
}

function kindOf(path: string): "dir" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/**
 * How an absolute path is protected, or null. Judged on the path relative to the project root:
 * the path or any directory above it (below the root) may match; for a path outside the project
 * the directories it shares with the root are not judged.
 */
export function protection(path: string, root: string, rules: ProtectedPaths): Protection | null {
  if (inProtectedDir(path, rules)) return "secret";
  const parts = relative(root, path).split(sep).filter((part) => part !== ".." && part !== "");
  if (parts.some((name) => isSecretName(name, rules))) return "secret";
  if (parts.some((name) => isGuardedName(name, rules))) return "protected";
  if (rules.globs.length === 0) return null;
  const rel = folded(relative(root, path).split(sep).join("/"), rules);
  for (let end = rel.length; end > 0; end = rel.lastIndexOf("/", end - 1)) {
    const prefix = rel.slice(0, end);
    if (rules.globs.some((glob) => glob.match(prefix))) return "protected";
  }
  return null;
}

function inProtectedDir(path: string, rules: ProtectedPaths): boolean {
  return rules.dirs.some((dir) => isInside(path, dir));
}

function isSecretName(name: string, rules: ProtectedPaths): boolean {
  const lower = name.toLowerCase();
  return rules.secret.some((glob) => glob.match(lower));
}

function isGuardedName(name: string, rules: ProtectedPaths): boolean {
  const lower = name.toLowerCase();
  return rules.guarded.some((glob) => glob.match(lower)) || rules.names.some((glob) => glob.match(folded(name, rules)));
}

/**
 * Where the file system ignores case (macOS, Windows), config.yaml's globs and the names they are
 * matched against are lower-cased, so `*.secret` also covers `A.SECRET`; elsewhere they match as written.
 */
const FOLDS_CASE = process.platform === "darwin" || process.platform === "win32";

function folded(text: string, rules: ProtectedPaths): string {
  return rules.foldCase ? text.toLowerCase() : text;
}

/** Directories whose verdict a judge remembers before it starts again (a listing judges every file). */
const MAX_REMEMBERED = 20_000;
/** A `.` or `..` segment, a doubled separator or a trailing one: such a path is judged the long way, which normalises it. */
const UNUSUAL = /(^|[\\/])\.\.?([\\/]|$)|[\\/]{2}|.[\\/]$/;

/** {@link UNUSUAL}, tested only on a path holding what it looks for (most do not, and the test costs more than the look). */
function unusual(path: string): boolean {
  const maybe = path.startsWith(".") || path.includes("/.") || path.includes("//") || path.endsWith("/") || path.includes("\\");
  return maybe && UNUSUAL.test(path);
}

/**
 * {@link protection} for many paths under one root, as a listing or a tool call asks: each
 * directory is judged once, and a path below it by its own name and relative path only.
 */
export function protectionJudge(root: string, rules: ProtectedPaths): Judge {
  const below = withSep(root);
  const dirsBelow = rules.dirs.map(withSep);
  // Paths here are normalised (odd forms go the long way), so a prefix says what isInside would.
  const inDir = (path: string): boolean => dirsBelow.some((dir) => path.startsWith(dir) || (dir.length === path.length + 1 && dir.startsWith(path)));
  const dirs = new Map<string, Protection | null>();
  // A listing gives a directory's files one after another: their parent is compared, not looked up.
  let lastParent = "";
  let lastAbove: Protection | null = null;
  const judge = (path: string): Protection | null => {
    if (!path.startsWith(below) || unusual(path)) return protection(path, root, rules);
    // A normalised path below the root: its parent and name by its last separator (dirname and basename cost more than the rest).
    const cut = sep === "/" ? path.lastIndexOf(sep) : -1;
    const deeper = cut >= below.length;
    let above: Protection | null | undefined;
    if (deeper && cut === lastParent.length && path.startsWith(lastParent)) above = lastAbove;
    else {
      const parent = deeper ? path.slice(0, cut) : dirname(path);
      above = dirs.get(parent);
      if (above === undefined) {
        above = judge(parent);
        if (dirs.size >= MAX_REMEMBERED) dirs.clear();
        dirs.set(parent, above);
      }
      lastParent = parent;
      lastAbove = above;
    }
    if (above === "secret" || inDir(path)) return "secret";
    return ownProtection(nameProtection(deeper ? path.slice(cut + 1) : basename(path), rules), path.slice(below.length), rules) ?? above;
  };
  return judge;
}

function withSep(path: string): string {
  return path.endsWith(sep) ? path : `${path}${sep}`;
}

/**
 * How a path inside the root is protected by its own name (`byName`, the name's verdict) or its
 * path relative to the root (`rel`), its parent's verdict and the protected dirs aside.
 */
function ownProtection(byName: Protection | null, rel: string, rules: ProtectedPaths): Protection | null {
  if (byName) return byName;
  if (rules.globs.length === 0) return null;
  const posix = folded(sep === "/" ? rel : rel.split(sep).join("/"), rules);
  return anyMatches(rules.globs, rules.shapes.globs, posix) ? "protected" : null;
}

/** How a name protects what it names: a secret's, a protected name's, or null. */
function nameProtection(name: string, rules: ProtectedPaths): Protection | null {
  const lower = name.toLowerCase();
  const { shapes } = rules;
  if (anyMatches(rules.secret, shapes.secret, lower)) return "secret";
  if (anyMatches(rules.guarded, shapes.guarded, lower)) return "protected";
  return anyMatches(rules.names, shapes.names, folded(name, rules)) ? "protected" : null;
}

/**
 * A judge of what a search or a listing under `base` finds, by each path as written and as it
 * really is: the base, or the root, may lead through a symlink (into a protected directory, or
 * to where a protected dir is named by its real path). The real paths of the base and the root
 * are found once and each path is mapped, not resolved: the walkers follow no symlink below the
 * base. A real path inside the real root is judged relative to the root as well.
 */
export function judgeFound(base: string, root: string, judge: Judge): Judge {
  const realBase = realPath(base);
  const realRoot = realPath(root);
  if (realBase === base && realRoot === root) return judge;
  const toReal = rebase(base, realBase);
  const toRoot = realRoot === root ? () => null : rebase(realRoot, root);
  return (path) => {
    const written = judge(path);
    const real = toReal(path);
    if (written === "secret" || real === null) return written;
    const verdict = stronger(written, judge(real));
    const asRoot = verdict === "secret" ? null : toRoot(real);
    return asRoot === null ? verdict : stronger(verdict, judge(asRoot));
  };
}

/** `path` with the directory `from` at its start swapped for `to`; null when `path` is not in `from`. */
function rebase(from: string, to: string): (path: string) => string | null {
  const below = withSep(from);
  return (path) => {
    if (path === from) return to;
    return path.startsWith(below) ? join(to, path.slice(below.length)) : null;
  };
}

function stronger(a: Protection | null, b: Protection | null): Protection | null {
  if (a === "secret" || b === "secret") return "secret";
  return a ?? b;
}

/**
 * What a search or a listing leaves out: `names`, globs ripgrep skips as it walks (so their files
 * are never read), and `leaveOut`, the final say on every path found (absolute).
 */
export type PathGuard = { names: readonly string[]; leaveOut(path: string): boolean };

/** A guard leaving out what `leaveOut` says, with ripgrep skipping the secrets by name (`.git` it skips anyway). */
export function pathGuard(leaveOut: (path: string) => boolean): PathGuard {
  return { names: SECRET_NAMES, leaveOut };
}

/**
 * ripgrep's arguments skipping the guard's names, regardless of case as the judge matches them;
 * ripgrep applies `--iglob` after every `--glob` of the caller's, so they win.
 */
export function rgExclusions(guard: PathGuard | undefined): string[] {
  return guard ? guard.names.flatMap((name) => ["--iglob", `!${name}`]) : [];
}
