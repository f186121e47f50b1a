import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProjectFiles } from "../../src/engine/project-files.ts";

const dirs: string[] = [];
const opened: ProjectFiles[] = [];
afterEach(() => {
  for (const p of opened.splice(0)) p.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(): string {
  const d = mkdtempSync(join(tmpdir(), "lembas-watch-"));
  dirs.push(d);
  return d;
}

function followed(root: string, opts: { maxFiles?: number } = {}): ProjectFiles {
  const files = new ProjectFiles(root, opts);
  opened.push(files);
  files.end(files.begin());
  return files;
}

const sh = (cwd: string, line: string) => Bun.spawnSync(["bash", "-c", line], { cwd });
/** More events than inotify's queue holds (16384 by default). */
const FLOOD = "seq -f j%g 1 9000 | xargs touch && seq -f j%g 1 9000 | xargs rm";

function window(files: ProjectFiles, root: string, line: string): string[] {
  const w = files.begin();
  sh(root, line);
  return files
    .end(w)
    .map((c) => c.rel)
    .sort();
}

test("after an event overflow, a directory removed and re-created in the same command is watched again", () => {
  const root = project();
  mkdirSync(join(root, "d"));
  writeFileSync(join(root, "d", "x"), "one\n");
  const files = followed(root);
  expect(files.watching).toBe(true);
  window(files, root, `rm -rf d && mkdir d && echo two > d/x && ${FLOOD}`);
  expect(window(files, root, "echo three > d/x")).toEqual(["d/x"]);
}, 30_000);

test("after an event overflow, a directory moved and then re-created under its old name is watched, both of them", () => {
  const root = project();
  mkdirSync(join(root, "a"));
  writeFileSync(join(root, "a", "f"), "1");
  const files = followed(root);
  window(files, root, `mv a b && ${FLOOD}`);
  expect(window(files, root, "mkdir a && echo new > a/g")).toEqual(["a/", "a/g"]);
  expect(window(files, root, "echo changed > a/g && echo changed > b/f")).toEqual(["a/g", "b/f"]);
}, 30_000);

test("the file bound holds after the first walk too: past it the project is no longer followed", () => {
  const root = project();
  for (let i = 0; i < 5; i++) writeFileSync(join(root, `f${i}`), "x");
  const files = followed(root, { maxFiles: 10 });
  expect(files.tooLarge).toBe(false);
  window(files, root, "seq 1 200 | xargs touch");
  expect(files.tooLarge).toBe(true);
});

test("what is seen of a file is kept as plain numbers, not bigints", () => {
  const root = project();
  writeFileSync(join(root, "f"), "x");
  const files = followed(root);
  const w = files.begin();
  sh(root, "echo y > f");
  const [change] = files.end(w);
  expect(Object.values(change?.after ?? {}).filter((v) => typeof v === "bigint")).toEqual([]);
});
