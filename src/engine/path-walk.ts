import { lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/** Symlinks followed in one walk before it gives up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

/**
 * Where `written` leads from the directory `from`, as the kernel walks it: one component at a
 * time, each symlink followed where it stands, so `link/..` is the parent of the link's target
 * and not the directory holding the link; the last component too, even when its target does not
 * exist yet (a write through a dangling link creates the target). Components that do not exist
 * are taken as written. Null when the links loop.
 */
export function walkPath(from: string, written: string): string | null {
  let links = 0;
  const walk = (start: string, path: string): string | null => {
    let current = isAbsolute(path) ? "/" : start;
    for (const part of path.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..") {
        current = dirname(current);
        continue;
      }
      const next = join(current, part);
      const target = linkTarget(next);
      if (target === null) {
        current = next;
        continue;
      }
      links++;
      if (links > MAX_LINKS) return null;
      const reached = walk(current, target);
      if (reached === null) return null;
      current = reached;
    }
    return current;
  };
  const start = walk("/", from);
  return start === null ? null : walk(start, written);
}

function linkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

/** Matches beyond this many are not judged one by one: the glob is taken to match anything. */
const MAX_GLOB_MATCHES = 2_000;

/**
 * The absolute paths a glob matches from `dir` now, dotfiles only where the pattern names the dot
 * (as bash without dotglob); null when there are more than can be judged or the scan fails.
 */
export function globOnDisk(dir: string, pattern: string): string[] | null {
  // bash without globstar reads ** as *; scanning a whole tree for it could take minutes.
  if (pattern.includes("**")) return null;
  const absolute = isAbsolute(pattern);
  const found: string[] = [];
  try {
    const glob = new Bun.Glob(absolute ? pattern.slice(1) : pattern);
    for (const path of glob.scanSync({ cwd: absolute ? "/" : dir, dot: false, onlyFiles: false, absolute: true, followSymlinks: false })) {
      found.push(path);
      if (found.length > MAX_GLOB_MATCHES) return null;
    }
  } catch {
    return null;
  }
  return found;
}
