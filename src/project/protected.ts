import { statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";
import { realPath } from "../real-path.ts";
import { anyMayMatch, type GlobScreen, globScreen } from "./glob-screen.ts";

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
  /** The lists above compiled for a listing's many names and paths (see {@link GlobScreen}): the same answers, most found without a glob run. */
  screens: { secret: GlobScreen; guarded: GlobScreen; names: GlobScreen; globs: GlobScreen };
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
  const names = extra.filter((p) => !p.includes("/")).map(fold);
  const globs = [...slashed, ...dirsOfGlobs];
  return {
    secret: SECRET_NAMES.map(glob),
    guarded: GUARDED_NAMES.map(glob),
    names: names.map(glob),
    foldCase,
    globs: globs.map(glob),
    screens: {
      secret: SECRET_SCREEN,
      guarded: GUARDED_SCREEN,
      names: globScreen(names, foldCase),
      globs: globScreen(globs, foldCase),
    },
    dirs: [...new Set(forms)],
  };
}

const SECRET_SCREEN = globScreen(SECRET_NAMES, true);
const GUARDED_SCREEN = globScreen(GUARDED_NAMES, true);

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
 * {@link unusual} for a path whose part before its last `/` (at `cut`) is not: only its name can
 * make it so, by being empty, starting with a dot, or holding a backslash.
 */
function unusualName(path: string, cut: number): boolean {
  const maybe = cut === path.length - 1 || path.charCodeAt(cut + 1) === DOT || path.includes("\\", cut);
  return maybe && UNUSUAL.test(path);
}

const DOT = 46;

/**
 * {@link protection} for many paths under one root, as a listing or a tool call asks: each
 * directory is judged once, and a path below it by its own name and relative path only.
 */
export function protectionJudge(root: string, rules: ProtectedPaths): Judge {
  const below = withSep(root);
  const dirsBelow = rules.dirs.map(withSep);
  // A path is in a protected dir when its parent is in it or is it, which its parent's verdict
  // ("secret") says: here only whether it is one of the dirs itself is left to look at.
  const dirLengths = new Set(dirsBelow.map((dir) => dir.length - 1));
  const isDir = (path: string): boolean => dirLengths.has(path.length) && dirsBelow.some((dir) => dir.length === path.length + 1 && dir.startsWith(path));
  // Most names and relative paths no glob could match, which their first and last characters say.
  const nameMay = anyMayMatch([rules.screens.secret, rules.screens.guarded, rules.screens.names]);
  const relMay = sep === "/" ? anyMayMatch([rules.screens.globs]) : () => true;
  const dirs = new Map<string, Protection | null>();
  // A listing gives a directory's files one after another: their parent is compared, not looked up.
  let lastParent = "";
  let lastAbove: Protection | null = null;
  const judge = (path: string): Protection | null => {
    if (!path.startsWith(below)) return protection(path, root, rules);
    // A path below the root: its parent and name by its last separator (dirname and basename cost more than the rest).
    const cut = sep === "/" ? path.lastIndexOf(sep) : -1;
    const deeper = cut >= below.length;
    // The last parent was judged here, so it is normalised: only the name can make the path odd.
    const sameParent = deeper && cut === lastParent.length && path.startsWith(lastParent);
    // Odd forms go the long way, which normalises them; a normalised path's prefix says what isInside would.
    if (sameParent ? unusualName(path, cut) : unusual(path)) return protection(path, root, rules);
    let above: Protection | null | undefined;
    if (sameParent) above = lastAbove;
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
    if (above === "secret" || isDir(path)) return "secret";
    const name = deeper ? cut + 1 : path.length - basename(path).length;
    if (!nameMay(path, name) && !relMay(path, below.length)) return above;
    return nameProtection(path, name, rules) ?? ownProtection(path, below.length, rules) ?? above;
  };
  return judge;
}

function withSep(path: string): string {
  return path.endsWith(sep) ? path : `${path}${sep}`;
}

/** How a path inside the root is protected by its path relative to the root (from `from` on), or null. */
function ownProtection(path: string, from: number, rules: ProtectedPaths): Protection | null {
  if (rules.globs.length === 0) return null;
  if (sep === "/") return rules.screens.globs.matches(path, from) ? "protected" : null;
  return rules.screens.globs.matches(path.slice(from).split(sep).join("/")) ? "protected" : null;
}

/** How the name at the end of `path` (from `from` on) protects what it names: a secret's, a protected name's, or null. */
function nameProtection(path: string, from: number, rules: ProtectedPaths): Protection | null {
  const { screens } = rules;
  if (screens.secret.matches(path, from)) return "secret";
  if (screens.guarded.matches(path, from)) return "protected";
  return screens.names.matches(path, from) ? "protected" : null;
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
