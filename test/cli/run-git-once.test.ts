/**
 * A fresh `lembas run` in a repository whose config sets no filter starts one git before its first
 * model request, its status: not a `git config` first, which a one-shot's status waited on while
 * the program loaded (bench/START.md). A repository with a filter is still asked, and its filter
 * turned off. git is a wrapper on PATH that writes down each of its calls.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas } from "../support/run.ts";

let model: ScriptedModel;
beforeAll(async () => {
  model = await startModel();
});
afterAll(() => model.close());

/** The git calls a `lembas run hi` made in a repository set up by `setUp`, and what its first request showed of the status. */
async function gitCalls(setUp: (project: string, git: (...args: string[]) => void) => void): Promise<{ calls: string[]; prompt: string }> {
  const box = projectSandbox(model.url);
  try {
    const realGit = Bun.which("git");
    if (!realGit) throw new Error("these tests need git");
    const bin = join(box.dir, "bin");
    const log = join(box.dir, "git-calls.log");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    const git = (...args: string[]) => {
      Bun.spawnSync([realGit, "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: box.project, stdout: "ignore", stderr: "ignore" });
    };
    git("init", "-q");
    writeFileSync(join(box.project, "a.txt"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "init");
    setUp(box.project, git);
    model.push(step({ text: "hello" }));
    const before = model.requests.length;
    const result = await runLembas(box, ["run", "hi"], { cwd: box.project, env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` } });
    expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
    const body = JSON.stringify(model.requests[before]?.body ?? {});
    return { calls: existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [], prompt: body };
  } finally {
    box.cleanup();
  }
}

test("a repository whose config sets no filter: one git, its status", async () => {
  const { calls, prompt } = await gitCalls(() => {});
  expect(calls).toEqual(["-c core.fsmonitor=false --no-optional-locks status --porcelain=v1 -b --ignore-submodules=all"]);
  expect(prompt).toContain("no changes");
});

test("a repository with a filter: git is asked for its filters, and the status runs with each turned off", async () => {
  const ran = join(tmpdir(), `lembas-filter-ran-${process.pid}`);
  const { calls, prompt } = await gitCalls((project, git) => {
    writeFileSync(join(project, ".gitattributes"), "a.txt filter=evil\n");
    git("config", "filter.evil.clean", `sh -c "touch '${ran}'; cat"`);
    writeFileSync(join(project, "a.txt"), "changed\n");
  });
  expect(calls[0]).toStartWith("config --local --includes");
  expect(calls[1]).toBe("-c core.fsmonitor=false -c filter.evil.clean= --no-optional-locks status --porcelain=v1 -b --ignore-submodules=all");
  expect(existsSync(ran)).toBe(false);
  expect(prompt).toContain("a.txt");
});
