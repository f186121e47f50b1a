import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EACCES, ENOENT, ENOTDIR, Inotify, IN_MOVED_FROM, IN_MOVED_TO } from "../../src/engine/inotify.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

test("a watch that cannot be made says why (errno), so that only running out of watches turns watching off", () => {
  const dir = mkdtempSync(join(tmpdir(), "lembas-inotify-"));
  dirs.push(dir);
  writeFileSync(join(dir, "file"), "x");
  const watch = Inotify.open();
  expect(watch).not.toBeNull();
  try {
    expect(watch?.add(join(dir, "missing"))).toBe(-ENOENT);
    expect(watch?.add(join(dir, "file"))).toBe(-ENOTDIR);
    expect(watch?.add(dir)).toBeGreaterThan(0);
    expect(EACCES).toBe(13);
  } finally {
    watch?.close();
  }
});

test("a rename's two halves carry the same cookie", () => {
  const dir = mkdtempSync(join(tmpdir(), "lembas-inotify-"));
  dirs.push(dir);
  writeFileSync(join(dir, "a"), "x");
  const watch = Inotify.open();
  try {
    watch?.add(dir);
    Bun.spawnSync(["mv", join(dir, "a"), join(dir, "b")]);
    const events = watch?.drain() ?? [];
    const from = events.find((e) => e.mask & IN_MOVED_FROM);
    const to = events.find((e) => e.mask & IN_MOVED_TO);
    expect(from?.cookie).toBeGreaterThan(0);
    expect(to?.cookie).toBe(from?.cookie ?? -1);
  } finally {
    watch?.close();
  }
});
