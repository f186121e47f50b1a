import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withCommandGitConfig } from "../../src/project/git-safety.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "lembas-git-safety-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir });

/** A directory the model could write: a git directory by another name whose fsmonitor is a command. */
function fakeGitDirectory(): string {
  const sub = join(dir, "sub");
  mkdirSync(join(sub, "objects"), { recursive: true });
  mkdirSync(join(sub, "refs"));
  writeFileSync(join(sub, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(sub, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${join(dir, "PWNED")}; false"\n`);
  return sub;
}

test("git status in such a directory runs its fsmonitor; with the commands' config it does not", () => {
  const sub = fakeGitDirectory();
  Bun.spawnSync(["git", "status"], { cwd: sub, env: withCommandGitConfig(base()), stdout: "ignore", stderr: "ignore" });
  expect(existsSync(join(dir, "PWNED"))).toBe(false);
  Bun.spawnSync(["git", "status"], { cwd: sub, env: base(), stdout: "ignore", stderr: "ignore" });
  expect(existsSync(join(dir, "PWNED"))).toBe(true);
});

test("the config is added after what the environment already gives git, which it keeps", () => {
  const env = withCommandGitConfig({ ...base(), GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "Person" });
  expect(env.GIT_CONFIG_COUNT).toBe("3");
  const get = (key: string) => Bun.spawnSync(["git", "config", "--get", key], { cwd: dir, env, stdout: "pipe" }).stdout.toString().trim();
  expect([get("user.name"), get("safe.bareRepository"), get("core.fsmonitor")]).toEqual(["Person", "explicit", "false"]);
});
