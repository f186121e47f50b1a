import { existsSync, lstatSync, readFileSync } from "node:fs";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { repositoryTop } from "./ignore-outside.ts";

/**
 * Adds `pattern` (a directory relative to `root`, like `.agent/plans/`) to the repository's own
 * `.git/info/exclude` once, so that what lembas keeps in the person's tree leaves `git status`
 * clean without a commit or a line in their `.gitignore`. Nothing when `root` is in no repository;
 * a pattern already there (the line exactly) is not added again. Returns the file written, or null.
 */
export async function excludeOnce(root: string, pattern: string): Promise<string | null> {
  const top = repositoryTop(root);
  if (!top) return null;
  const gitDir = commonGitDir(top);
  if (!gitDir) return null;
  const inside = relative(top, root).split(sep).join("/");
  // info/exclude patterns are relative to the repository's top: one with a slash is anchored there.
  const line = inside ? `/${inside}/${pattern}` : pattern;
  const file = join(gitDir, "info", "exclude");
  const text = await readFile(file, "utf8").catch(() => "");
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines.includes(line) || lines.includes(`/${line}`)) return null;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`);
  return file;
}

/**
 * The directory holding the repository's info/exclude: `.git` itself, or for a linked worktree
 * (`.git` a `gitdir:` file) the main repository's, which its `commondir` names.
 */
function commonGitDir(top: string): string | null {
  const dotGit = join(top, ".git");
  try {
    if (lstatSync(dotGit).isDirectory()) return dotGit;
    const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!named) return null;
    const gitDir = isAbsolute(named) ? named : resolve(top, named);
    const common = join(gitDir, "commondir");
    if (!existsSync(common)) return gitDir;
    const to = readFileSync(common, "utf8").trim();
    return isAbsolute(to) ? to : resolve(gitDir, to);
  } catch {
    return null;
  }
}
