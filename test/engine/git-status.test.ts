import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitStatus, insideRepository } from "../../src/engine/git-status.ts";

let dir: string;
let path: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-git-status-"));
  path = process.env.PATH;
});
afterEach(() => {
  process.env.PATH = path;
  rmSync(dir, { recursive: true, force: true });
});

test("a .git directory or a worktree's .git file, in the directory or above it, is a repository; a directory with neither is not", () => {
  const plain = join(dir, "plain", "deep");
  mkdirSync(plain, { recursive: true });
  expect(insideRepository(plain)).toBe(false);
  mkdirSync(join(dir, "repo", ".git", "objects"), { recursive: true });
  mkdirSync(join(dir, "repo", "src", "app"), { recursive: true });
  expect(insideRepository(join(dir, "repo", "src", "app"))).toBe(true);
  mkdirSync(join(dir, "worktree"));
  writeFileSync(join(dir, "worktree", ".git"), "gitdir: /elsewhere/.git/worktrees/w\n");
  expect(insideRepository(join(dir, "worktree"))).toBe(true);
});

test("outside a repository git is not started; inside one it is", async () => {
  // A `git` first on PATH that leaves a mark each time it runs.
  const bin = join(dir, "bin");
  const mark = join(dir, "ran");
  mkdirSync(bin);
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho x >> ${JSON.stringify(mark)}\necho '## fake'\n`);
  chmodSync(join(bin, "git"), 0o755);
  process.env.PATH = `${bin}:${path ?? ""}`;
  const plain = join(dir, "plain");
  mkdirSync(plain);
  expect(await gitStatus(plain)).toBeNull();
  expect(existsSync(mark)).toBe(false);
  mkdirSync(join(dir, "repo", ".git"), { recursive: true });
  expect(await gitStatus(join(dir, "repo"))).toBe("branch fake\nno changes");
  expect(existsSync(mark)).toBe(true);
});

test("a status of exactly the size limit (64 KiB) is whole, counted to the end; one byte more is cut", async () => {
  const bin = join(dir, "bin");
  const out = join(dir, "status.txt");
  mkdirSync(bin);
  writeFileSync(join(bin, "git"), `#!/bin/sh\ncase " $* " in *" status "*) cat ${JSON.stringify(out)} ;; esac\n`);
  chmodSync(join(bin, "git"), 0o755);
  process.env.PATH = `${bin}:${path ?? ""}`;
  mkdirSync(join(dir, "repo", ".git"), { recursive: true });
  const status = (limit: number) => {
    const head = "## fake\n";
    const lines = Array.from({ length: 30 }, (_, i) => `?? file-${String(i).padStart(2, "0")}-`);
    const pad = limit - head.length - lines.reduce((n, l) => n + l.length + 1, 0);
    lines[29] = `${lines[29]}${"x".repeat(pad)}`;
    return `${head}${lines.join("\n")}\n`;
  };
  writeFileSync(out, status(64 * 1024));
  expect(Buffer.byteLength(status(64 * 1024))).toBe(64 * 1024);
  const whole = await gitStatus(join(dir, "repo"));
  expect(whole?.split("\n").at(-1)).toBe("… and 10 more");
  writeFileSync(out, status(64 * 1024 + 1));
  const cut = await gitStatus(join(dir, "repo"));
  expect(cut?.split("\n").at(-1)).toBe("… and more");
});
