import { lstatSync, readdirSync, statSync } from "node:fs";
import { homedir } from "../home.ts";
import { dirname, join, relative } from "node:path";
import { isInside } from "../paths.ts";
import { isProtected, type ProtectedPaths, protectionJudge } from "../project/protected.ts";
import { realOr, realPath, walkPath } from "../real-path.ts";
import type { CommandPlace, TreeVerdict } from "./command-places.ts";
import { globOnDisk } from "./disk-glob.ts";
import { gitDirOf, readIndex } from "./git-index.ts";

/** Entries a walk of a tree looks at before it gives up: a tree that large is taken to hold a protected file. */
const MAX_TREE_ENTRIES = 100_000;

/**
 * Where a command line runs and how its paths are judged: the disk as it is now, symlinks
 * followed as bash will, `~` as the command's HOME.
 */
export function diskPlace(input: { cwd: string; root: string; home?: string | undefined; protectedPaths: ProtectedPaths }): CommandPlace {
  const { root, protectedPaths } = input;
  const realRoot = realOr(root);
  // In-project paths judged as under the root as written (the rules' relative globs), others as they are.
  const asWritten = (real: string) => (isInside(real, realRoot) ? join(root, relative(realRoot, real)) : real);
  return {
    cwd: input.cwd,
    root,
    home: input.home ?? homedir(),
    isProtected: (path) => isProtected(path, root, protectedPaths),
    walk: walkPath,
    glob: globOnDisk,
    kind: kindOf,
    entries: (dir) => {
      try {
        const names = readdirSync(dir);
        return names.length > MAX_TREE_ENTRIES ? null : names;
      } catch {
        return null;
      }
    },
    holdsProtected: (dir, hidden) => holdsProtected(dir, hidden, protectionJudge(root, protectedPaths), asWritten),
    trackedProtected: (dir) => trackedProtected(dir, (path) => isProtected(asWritten(realPath(path)), root, protectedPaths)),
  };
}

function kindOf(path: string): "dir" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/**
 * Whether a tree holds a protected path a reader of all its files would read (hidden ones only when
 * `hidden`), breadth first so that one near the top is found soon. `.git` is not looked into:
 * git's own files are protected against changes, not secret. A symlink is judged by where it leads too.
 */
function holdsProtected(dir: string, hidden: boolean, judge: (path: string) => unknown, asWritten: (real: string) => string): TreeVerdict {
  const queue = [dir];
  let seen = 0;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let entries;
    try {
      entries = readdirSync(next, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_TREE_ENTRIES) return "too many";
      if (!hidden && entry.name.startsWith(".")) continue;
      if (entry.name.toLowerCase() === ".git") continue;
      const path = join(next, entry.name);
      if (judge(asWritten(path)) !== null) return "protected";
      if (entry.isSymbolicLink() && judge(asWritten(realPath(path))) !== null) return "protected";
      if (entry.isDirectory()) queue.push(path);
    }
  }
  return null;
}

/**
 * The protected files the git repository `dir` is in tracks (its index), each with whether it
 * differs on disk from what the index holds (a diff of the work tree would show it).
 */
function trackedProtected(dir: string, guarded: (path: string) => boolean): { path: string; changed: boolean }[] {
  const top = workTreeTop(dir);
  if (top === null) return [];
  const gitDir = gitDirOf(top);
  const index = gitDir === null ? null : readIndex(gitDir, null);
  if (index === null) return [];
  const found: { path: string; changed: boolean }[] = [];
  for (const [rel, entry] of index.entries()) {
    const path = join(top, rel);
    if (!guarded(path)) continue;
    found.push({ path, changed: changedOnDisk(path, entry) });
  }
  return found;
}

function workTreeTop(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (gitDirOf(at) !== null) return at;
    if (dirname(at) === at) return null;
  }
}

function changedOnDisk(path: string, entry: { size: number; mtimeSec: number; mtimeNsec: number }): boolean {
  try {
    const stat = lstatSync(path, { bigint: true });
    const mtimeNs = BigInt(entry.mtimeSec) * 1_000_000_000n + BigInt(entry.mtimeNsec);
    return Number(stat.size) !== entry.size || stat.mtimeNs !== mtimeNs;
  } catch {
    return true;
  }
}
