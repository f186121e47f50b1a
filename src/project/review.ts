import { spawnGit, withoutProjectPrograms } from "./git-safety.ts";

/** The most of a diff a /review prompt carries; a larger one is cut with a note. */
const MAX_DIFF = 200_000;

export type ReviewInput = { ok: true; text: string } | { ok: false; message: string };

async function run(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  const proc = spawnGit(cwd, args);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, out };
}

/**
 * What /review asks the model to review: the uncommitted changes (no argument, or `head`), or
 * everything since a branch. No changes, or no git: a message instead, and nothing is sent.
 */
export async function reviewInput(cwd: string, args: string): Promise<ReviewInput> {
  if (!Bun.which("git")) return { ok: false, message: "git is not installed: there is nothing /review can read" };
  // The repository's own programs (fsmonitor, filters, textconv, external diffs) do not run: it may be a downloaded tree.
  const overrides = await withoutProjectPrograms(cwd, AbortSignal.timeout(10_000));
  if (!overrides) return { ok: false, message: "the repository's config names a filter git cannot be told to leave out: /review does not run git there" };
  const git = (args: string[]) => run(cwd, [...overrides, ...args]);
  if ((await git(["rev-parse", "--is-inside-work-tree"])).code !== 0) return { ok: false, message: "this directory is not in a git repository: there is nothing to review" };
  const target = args.trim();
  const against = !target || target.toLowerCase() === "head" ? "HEAD" : target;
  if ((await git(["rev-parse", "--verify", "--quiet", `${against}^{commit}`])).code !== 0) {
    return { ok: false, message: against === "HEAD" ? "the repository has no commit yet: there is nothing to compare with" : `there is no branch or commit ${against}` };
  }
  const diff = (await git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", against])).out;
  const untracked = (await git(["ls-files", "--others", "--exclude-standard"])).out.trim();
  if (!diff.trim() && !untracked) return { ok: false, message: `There are no changes to review${against === "HEAD" ? "" : ` against ${against}`}.` };
  const cut = diff.length > MAX_DIFF ? `${diff.slice(0, MAX_DIFF)}\n[… the diff goes on for ${diff.length - MAX_DIFF} more characters: read the files for the rest]` : diff;
  const what = against === "HEAD" ? "the uncommitted changes" : `the changes against ${against}`;
  return {
    ok: true,
    text: [
      `Review ${what}: bugs, risky or unclear code, missing tests, and anything that does not fit the project's conventions. Read the surrounding code where the diff alone is not enough. Say what you found, most important first, with path:line; do not change files.`,
      "```diff",
      cut.trimEnd(),
      "```",
      ...(untracked ? [`New files not yet tracked by git:\n${untracked}`] : []),
    ].join("\n\n"),
  };
}
