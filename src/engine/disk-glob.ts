import { isAbsolute } from "node:path";

/** Path levels with a wildcard beyond this many are not scanned: the glob is taken to match anything. */
const MAX_WILD_LEVELS = 2;

/** Matches beyond this many are not judged one by one: the glob is taken to match anything. */
const MAX_GLOB_MATCHES = 2_000;

/**
 * The absolute paths a glob matches from `dir` now, dotfiles only where the pattern names the dot
 * (as bash without dotglob); null when there are more than can be judged or the scan fails.
 */
export function globOnDisk(dir: string, pattern: string): string[] | null {
  // bash without globstar reads ** as *; scanning a whole tree for it could take minutes, and so
  // could a pattern with wildcards at many levels (/usr/*/*/*/x): the scan is synchronous.
  if (pattern.includes("**")) return null;
  if (pattern.split("/").filter((part) => /[*?[]/.test(part)).length > MAX_WILD_LEVELS) return null;
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
