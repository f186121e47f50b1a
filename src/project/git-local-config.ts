import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Whether the repository of `dir` plainly sets no filter: its own config file (what `git config
 * --local` reads), found as git finds it (a `.git` directory, or a worktree's or submodule's `.git`
 * file naming its git directory), says neither "filter" nor "include" anywhere. Then the `git
 * config` process that looks for filters (git-safety.ts) has nothing to find, and a session's git
 * status starts at once. Anything less plain (GIT_DIR set, a config that names a filter or includes
 * another file, one that cannot be read) is false, and git is asked.
 */
export function setsNoFilter(dir: string): boolean {
  if (process.env.GIT_DIR || process.env.GIT_COMMON_DIR) return false;
  const file = localConfigFile(dir);
  if (!file) return false;
  try {
    return !/filter|include/i.test(readFileSync(file, "utf8"));
  } catch {
    return false;
  }
}

/** The config file of the repository `dir` is in, or null when it is not found plainly. */
function localConfigFile(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const dotGit = join(at, ".git");
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return join(dotGit, "config");
    if (stat?.isFile()) return linkedConfigFile(at, dotGit);
    if (stat) return null;
    if (dirname(at) === at) return null;
  }
}

/** A `.git` file's repository config: `gitdir: X`, then X's `commondir` (a linked worktree's) or X itself. */
function linkedConfigFile(at: string, dotGit: string): string | null {
  try {
    const line = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!line) return null;
    const gitDir = resolve(at, line);
    const common = statSync(join(gitDir, "commondir"), { throwIfNoEntry: false }) ? resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim()) : gitDir;
    return join(common, "config");
  } catch {
    return null;
  }
}
