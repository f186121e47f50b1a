/**
 * Where plan_submit keeps plans: `.agent/plans/` in the project, as the spec says, and out of the
 * person's `git status` through the repository's own `.git/info/exclude` (added to once), with
 * nothing committed and no `.gitignore` written.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EngineHarness, engineHarness, person, step } from "../support/engine.ts";

let h: EngineHarness;
beforeEach(async () => {
  h = await engineHarness();
});
afterEach(() => h.close());

function git(cwd: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

function repo(dir: string): void {
  git(dir, "init", "-q");
  writeFileSync(join(dir, "README.md"), "hi\n");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "first");
}

const submits = (title: string) => step({ toolCalls: [{ name: "plan_submit", arguments: { plan: `# ${title}\n- do it`, title } }] });

describe("plan files", () => {
  test("two plans land in .agent/plans, .git/info/exclude gets .agent/plans/ once, git status stays clean, nothing is committed", async () => {
    repo(h.project);
    const exclude = join(h.project, ".git", "info", "exclude");
    const before = readFileSync(exclude, "utf8");
    h.model.push(submits("first plan"), step({ text: "ok" }), submits("second plan"), step({ text: "ok" }));
    const session = await h.session({ mode: "plan" });
    session.interaction = person();
    await session.prompt({ text: "plan it" });
    await session.prompt({ text: "plan again" });
    expect(readdirSync(join(h.project, ".agent", "plans")).sort()).toEqual([expect.stringMatching(/-first-plan\.md$/), expect.stringMatching(/-second-plan\.md$/)]);
    const after = readFileSync(exclude, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.split("\n").filter((line) => line === ".agent/plans/")).toHaveLength(1);
    expect(git(h.project, "status", "--porcelain")).toBe("");
    expect(existsSync(join(h.project, ".gitignore"))).toBe(false);
    expect(git(h.project, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });

  test("a project below the repository's top gets its own anchored line", async () => {
    const top = join(h.box.dir, "mono");
    mkdirSync(top);
    repo(top);
    const project = join(top, "app");
    mkdirSync(project);
    h.model.push(submits("sub plan"), step({ text: "ok" }));
    const session = await h.engine.create({ cwd: project, root: project, mode: "plan" });
    session.interaction = person();
    await session.prompt({ text: "plan it" });
    expect(readdirSync(join(project, ".agent", "plans"))).toHaveLength(1);
    expect(readFileSync(join(top, ".git", "info", "exclude"), "utf8")).toContain("\n/app/.agent/plans/\n");
    expect(git(top, "status", "--porcelain")).toBe("");
  });

  test("a project in no repository gets its plan and no .git", async () => {
    h.model.push(submits("loose plan"), step({ text: "ok" }));
    const session = await h.session({ mode: "plan" });
    session.interaction = person();
    await session.prompt({ text: "plan it" });
    expect(readdirSync(join(h.project, ".agent", "plans"))).toHaveLength(1);
    expect(existsSync(join(h.project, ".git"))).toBe(false);
  });
});
