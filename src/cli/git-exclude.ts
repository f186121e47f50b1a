import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/**
 * Tells git to ignore `file` (relative to `root`) in this clone only, through the repository's
 * info/exclude, as Claude Code does for its personal settings: unless git ignores it already, or
 * `root` is in no git repository (then nothing is done). Never fails: a file git does not ignore
 * is the worst outcome, and `git status` shows it.
 */
export function keepOutOfGit(root: string, file: string): void {
  const git = (args: string[]) => Bun.spawnSync(["git", "-C", root, ...args], { stdout: "pipe", stderr: "ignore" });
  try {
    // 0: ignored already; 1: not ignored; anything else: no repository, or no git.
    if (git(["check-ignore", "-q", "--no-index", file]).exitCode !== 1) return;
    const found = git(["rev-parse", "--git-path", "info/exclude"]);
    const path = found.stdout.toString().trim();
    if (found.exitCode !== 0 || path === "") return;
    const exclude = isAbsolute(path) ? path : join(root, path);
    const text = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
    mkdirSync(dirname(exclude), { recursive: true });
    appendFileSync(exclude, `${text === "" || text.endsWith("\n") ? "" : "\n"}/${file}\n`);
  } catch {
    // No git on PATH: nothing to tell.
  }
}
