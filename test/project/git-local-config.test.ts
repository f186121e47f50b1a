/**
 * Whether a repository plainly sets no filter (project/git-local-config.ts), read from its config
 * file without git: wherever it says so, `git config --local --includes` finds no filter either
 * (the check it stands in for, git-safety.ts); anything less plain is left to git.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setsNoFilter } from "../../src/project/git-local-config.ts";
import { withoutProjectPrograms, withoutProjectProgramsNow } from "../../src/project/git-safety.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "lembas-git-local-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GIT_CONFIG_NOSYSTEM: "1" });
const git = (cwd: string, ...args: string[]) => {
  const done = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, env: env(), stdout: "pipe", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${done.stderr.toString()}`);
  return done.stdout.toString();
};
/** What git itself finds: the repository's filters' clean and process commands. */
const filtersGitFinds = (cwd: string) =>
  Bun.spawnSync(["git", "config", "--local", "--includes", "--name-only", "--get-regexp", "^filter\\..*\\.(clean|process)$"], { cwd, env: env(), stdout: "pipe", stderr: "ignore" })
    .stdout.toString()
    .trim();

function repo(name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, "src"), { recursive: true });
  git(root, "init", "-q");
  writeFileSync(join(root, "a.txt"), "a\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "init");
  return root;
}

test("a plain repository, at its root and below: no filter, as git finds", () => {
  const root = repo("plain");
  for (const at of [root, join(root, "src")]) {
    expect(setsNoFilter(at)).toBe(true);
    expect(filtersGitFinds(at)).toBe("");
  }
});

test("a filter, however its section is written, or an included file is left to git", () => {
  const root = repo("filtered");
  git(root, "config", "filter.evil.clean", "cat");
  expect(filtersGitFinds(root)).toBe("filter.evil.clean");
  expect(setsNoFilter(root)).toBe(false);

  const upper = repo("upper");
  writeFileSync(join(upper, ".git", "config"), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[FILTER "evil"]\n\tprocess = cat\n');
  expect(filtersGitFinds(upper)).not.toBe("");
  expect(setsNoFilter(upper)).toBe(false);

  const including = repo("including");
  writeFileSync(join(dir, "extra.config"), '[filter "evil"]\n\tclean = cat\n');
  git(including, "config", "include.path", join(dir, "extra.config"));
  expect(filtersGitFinds(including)).toBe("filter.evil.clean");
  expect(setsNoFilter(including)).toBe(false);
});

test("a linked worktree reads its repository's config; a .git file naming a git directory, that one's", () => {
  const root = repo("main");
  const tree = join(dir, "tree");
  git(root, "worktree", "add", "-q", tree);
  expect(setsNoFilter(tree)).toBe(true);
  git(root, "config", "filter.evil.clean", "cat");
  expect(filtersGitFinds(tree)).toBe("filter.evil.clean");
  expect(setsNoFilter(tree)).toBe(false);

  const other = repo("other");
  const linked = join(dir, "linked");
  mkdirSync(linked);
  writeFileSync(join(linked, ".git"), `gitdir: ${join(other, ".git")}\n`);
  expect(setsNoFilter(linked)).toBe(true);
  git(other, "config", "filter.x.process", "cat");
  expect(setsNoFilter(linked)).toBe(false);
});

test("no repository, or GIT_DIR set, is left to git", () => {
  mkdirSync(join(dir, "none"));
  expect(setsNoFilter(join(dir, "none"))).toBe(false);
  const root = repo("env");
  process.env.GIT_DIR = join(root, ".git");
  try {
    expect(setsNoFilter(root)).toBe(false);
  } finally {
    delete process.env.GIT_DIR;
  }
});

test("where it answers without git, it answers as git does", async () => {
  const root = repo("same");
  expect(withoutProjectProgramsNow(root)).toEqual(["-c", "core.fsmonitor=false"]);
  git(root, "config", "filter.evil.clean", "cat");
  expect(withoutProjectProgramsNow(root)).toBeNull();
  expect(await withoutProjectPrograms(root, AbortSignal.timeout(10_000))).toEqual(["-c", "core.fsmonitor=false", "-c", "filter.evil.clean="]);
});
