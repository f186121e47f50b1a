import { basename, dirname, relative, sep } from "node:path";
import { isInside } from "../paths.ts";

/**
 * Secrets: env files (every name starting `.env`), private keys and `.ssh`. Name globs, matched
 * against the name of the path and of every directory above it, so a directory protects what is
 * in it. Listings and searches leave their names out too, not only their content.
 */
export const SECRET_NAMES = [".env*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", "id_dsa*", "*.p12", "*.pfx", ".ssh"] as const;

/** Protected but not secret: git's repository, `.git` itself and everything in it. */
const GUARDED_NAMES = [".git"] as const;

/**
 * How a path is protected. Both kinds ask before any tool touches them, in every mode, and no
 * search shows their content; a secret's name is left out of listings as well.
 */
export type Protection = "secret" | "protected";

export type ProtectedPaths = {
  /** Name globs of secrets (the built-in list). */
  secret: Bun.Glob[];
  /** Name globs (no `/`) of protected paths: `.git` and config.yaml's that have no slash. */
  names: Bun.Glob[];
  /** config.yaml's globs with a slash, matched against the path relative to the project root. */
  globs: Bun.Glob[];
  /** lembas's config and state dirs (absolute): secrets, with all they hold. */
  dirs: string[];
};

/** The built-in list plus config.yaml's `protected:`, and the config and state dirs. */
export function protectedPaths(extra: readonly string[], dirs: readonly string[]): ProtectedPaths {
  const glob = (pattern: string): Bun.Glob => new Bun.Glob(pattern);
  return {
    secret: SECRET_NAMES.map(glob),
    names: [...GUARDED_NAMES, ...extra.filter((p) => !p.includes("/"))].map(glob),
    globs: extra.filter((p) => p.includes("/")).map(glob),
    dirs: [...dirs],
  };
}

/** Whether an absolute path is protected, judged relative to the project root. */
export function isProtected(path: string, root: string, rules: ProtectedPaths): boolean {
  return protection(path, root, rules) !== null;
}

/**
 * How an absolute path is protected, or null. Judged on the path relative to the project root:
 * the path or any directory above it (below the root) may match; for a path outside the project
 * the directories it shares with the root are not judged.
 */
export function protection(path: string, root: string, rules: ProtectedPaths): Protection | null {
  if (rules.dirs.some((dir) => isInside(path, dir))) return "secret";
  const parts = relative(root, path).split(sep).filter((part) => part !== ".." && part !== "");
  if (parts.some((name) => rules.secret.some((glob) => glob.match(name)))) return "secret";
  if (parts.some((name) => rules.names.some((glob) => glob.match(name)))) return "protected";
  if (rules.globs.length === 0) return null;
  const rel = relative(root, path).split(sep).join("/");
  for (let end = rel.length; end > 0; end = rel.lastIndexOf("/", end - 1)) {
    const prefix = rel.slice(0, end);
    if (rules.globs.some((glob) => glob.match(prefix))) return "protected";
  }
  return null;
}

/** Directories whose verdict a judge remembers before it starts again (a listing judges every file). */
const MAX_REMEMBERED = 20_000;
/** A `.` or `..` segment: such a path is judged the long way, which normalises it. */
const DOT_SEGMENT = /(^|[\\/])\.\.?([\\/]|$)/;

/**
 * {@link protection} for many paths under one root, as a listing or a tool call asks: each
 * directory is judged once, and a path below it by its own name and relative path only.
 */
export function protectionJudge(root: string, rules: ProtectedPaths): (path: string) => Protection | null {
  const below = root.endsWith(sep) ? root : `${root}${sep}`;
  const dirs = new Map<string, Protection | null>();
  const judge = (path: string): Protection | null => {
    if (!path.startsWith(below) || DOT_SEGMENT.test(path)) return protection(path, root, rules);
    const parent = dirname(path);
    let above = dirs.get(parent);
    if (above === undefined) {
      above = judge(parent);
      if (dirs.size >= MAX_REMEMBERED) dirs.clear();
      dirs.set(parent, above);
    }
    if (above === "secret") return "secret";
    return ownProtection(path, path.slice(below.length), rules) ?? above;
  };
  return judge;
}

/**
 * How a path inside the root is protected by itself (its parent's verdict aside): being a
 * protected dir, its name, or its path relative to the root (`rel`).
 */
function ownProtection(path: string, rel: string, rules: ProtectedPaths): Protection | null {
  if (rules.dirs.includes(path)) return "secret";
  const name = basename(path);
  if (rules.secret.some((glob) => glob.match(name))) return "secret";
  if (rules.names.some((glob) => glob.match(name))) return "protected";
  if (rules.globs.length === 0) return null;
  const posix = sep === "/" ? rel : rel.split(sep).join("/");
  return rules.globs.some((glob) => glob.match(posix)) ? "protected" : null;
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

/** ripgrep's arguments skipping the guard's names; they come after any glob of the caller's, so they win. */
export function rgExclusions(guard: PathGuard | undefined): string[] {
  return guard ? guard.names.flatMap((name) => ["--glob", `!${name}`]) : [];
}
