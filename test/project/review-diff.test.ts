import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reviewInput } from "../../src/project/review.ts";
import { tool } from "../support/tools.ts";

function git(cwd: string, ...args: string[]): void {
  const done = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  if (done.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${done.stderr.toString()}`);
}

const haveGit = tool("git", "git", "the attack on /review's diff") !== null;

describe("/review's diff", () => {
  test.skipIf(!haveGit)("attack: a repository's own config runs nothing (fsmonitor, a filter, textconv, an external diff)", async () => {
    const root = mkdtempSync(join(tmpdir(), "lembas-review-"));
    try {
      git(root, "init", "-q", "-b", "main");
      writeFileSync(join(root, ".gitattributes"), "a.txt filter=evil diff=evil\n");
      writeFileSync(join(root, "a.txt"), "one\n");
      git(root, "add", ".");
      git(root, "commit", "-qm", "first");
      const ran = join(root, "ran");
      git(root, "config", "core.fsmonitor", `touch '${ran}-fsmonitor'; false`);
      git(root, "config", "filter.evil.clean", `sh -c "touch '${ran}-clean'; cat"`);
      git(root, "config", "diff.evil.textconv", `sh -c "touch '${ran}-textconv'; cat \\"\\$1\\"" --`);
      git(root, "config", "diff.external", `sh -c "touch '${ran}-external'"`);
      await Bun.sleep(1_100);
      writeFileSync(join(root, "a.txt"), "one\ntwo\n");
      const input = await reviewInput(root, "");
      expect(input.ok).toBe(true);
      if (input.ok) expect(input.text).toContain("+two");
      expect(["fsmonitor", "clean", "textconv", "external"].filter((what) => existsSync(`${ran}-${what}`))).toEqual([]);
    } finally {
      Bun.spawnSync(["rm", "-rf", root]);
    }
  });
});
