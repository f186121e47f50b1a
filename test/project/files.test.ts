import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createFileIndexes, entriesOf, type FileIndexOptions, openFileIndex, refreshFileIndex, searchFiles } from "../../src/project/files.ts";
import { boostOf, decayed, HALF_LIFE_MS, MAX_BOOST, recentUses, recordUse } from "../../src/project/frecency.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { cleanup, tempDir, writeFiles } from "./tree.ts";
import { tool } from "../support/tools.ts";

afterAll(cleanup);

const rg = tool("rg", "ripgrep", "the ripgrep half of these tests");
const DAY = 24 * 60 * 60 * 1000;

/** A database in a fresh state dir, a project, and options with a clock the test moves. */
function setup(files: Record<string, string>, lister: string | null = rg) {
  const dbFile = join(tempDir(), "lembas.db");
  const db = openDb(dbFile);
  const root = writeFiles(tempDir(), files);
  const clock = { now: Date.UTC(2026, 0, 1) };
  const options: FileIndexOptions = { lister: { rg: lister, env: { PATH: process.env.PATH ?? "", HOME: tempDir() } }, now: () => clock.now };
  return { db, dbFile, root, clock, options };
}

const PROJECT = {
  ".gitignore": "dist/\n",
  "dist/bundle.js": "",
  "README.md": "",
  "src/index.ts": "",
  "src/util/strings.ts": "",
  "src/util/numbers.ts": "",
  "test/strings.test.ts": "",
};

const all = (db: Db, root: string) => searchFiles(openFileIndex(db, root), { query: "", limit: 50 });
const paths = (entries: { path: string }[]) => entries.map((e) => e.path).sort();

describe("the file index", () => {
  test("lists files and, derived from them, directories with kind dir; ignored ones left out", async () => {
    const { db, root, options } = setup(PROJECT);
    const index = openFileIndex(db, root, options);
    await refreshFileIndex(index);
    expect(searchFiles(index, { query: "", limit: 50 }).sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: ".gitignore", kind: "file" },
      { path: "README.md", kind: "file" },
      { path: "src", kind: "dir" },
      { path: "src/index.ts", kind: "file" },
      { path: "src/util", kind: "dir" },
      { path: "src/util/numbers.ts", kind: "file" },
      { path: "src/util/strings.ts", kind: "file" },
      { path: "test", kind: "dir" },
      { path: "test/strings.test.ts", kind: "file" },
    ]);
    expect(searchFiles(index, { query: "util" })[0]).toEqual({ path: "src/util", kind: "dir" });
  });

  test.skipIf(!rg)("ripgrep and the walker give the same index", async () => {
    const a = setup(PROJECT, rg);
    const b = setup(PROJECT, null);
    const withRg = openFileIndex(a.db, a.root, a.options);
    const withWalker = openFileIndex(b.db, a.root, b.options);
    await Promise.all([refreshFileIndex(withRg), refreshFileIndex(withWalker)]);
    expect([...entriesOf(withWalker)].sort()).toEqual([...entriesOf(withRg)].sort());
  });

  test("a refresh picks up new and deleted files, and stores only the difference", async () => {
    const { db, root, clock, options } = setup(PROJECT);
    const index = openFileIndex(db, root, options);
    expect(await refreshFileIndex(index)).toMatchObject({ added: 9, removed: 0 });
    writeFiles(root, { "src/util/dates.ts": "", "docs/guide.md": "" });
    rmSync(join(root, "test"), { recursive: true });
    clock.now += 10_000;
    expect(await refreshFileIndex(index)).toMatchObject({ added: 3, removed: 2, skipped: false });
    expect(searchFiles(index, { query: "dates" })).toEqual([{ path: "src/util/dates.ts", kind: "file" }]);
    expect(searchFiles(index, { query: "strings.test" })).toEqual([]);
    expect(paths(all(db, root))).toEqual(paths(searchFiles(index, { query: "", limit: 50 })));
  });

  test("a root that is gone is an error with a sentence, and what is stored stays", async () => {
    const { db, root, clock, options } = setup(PROJECT);
    const index = openFileIndex(db, root, options);
    await refreshFileIndex(index);
    rmSync(root, { recursive: true });
    clock.now += 10_000;
    await expect(refreshFileIndex(index)).rejects.toThrow(/cannot list the files of .*: it is not a directory/);
    expect(all(db, root)).toHaveLength(9);
  });

  test("lists again at most every few seconds unless forced", async () => {
    const { db, root, clock, options } = setup(PROJECT);
    const index = openFileIndex(db, root, { ...options, refreshEveryMs: 5_000 });
    await refreshFileIndex(index);
    writeFiles(root, { "new.ts": "" });
    clock.now += 1_000;
    expect((await refreshFileIndex(index)).skipped).toBe(true);
    expect(await refreshFileIndex(index, { force: true })).toMatchObject({ added: 1, skipped: false });
  });

  test("a second database handle (another process, or a restart) starts from the stored index", async () => {
    const { db, dbFile, root, options } = setup(PROJECT);
    await refreshFileIndex(openFileIndex(db, root, options));
    const other = openDb(dbFile);
    const warm = openFileIndex(other, root, { ...options, lister: { rg: "/nonexistent/rg" } });
    expect(searchFiles(warm, { query: "numbers" })).toEqual([{ path: "src/util/numbers.ts", kind: "file" }]);
    other.close();
  });

  test("the indexes of a process answer from the store at once, and list again in the background", async () => {
    const { db, dbFile, root, options } = setup(PROJECT);
    await createFileIndexes(db, options).search(root, { query: "x" });
    const other = openDb(dbFile);
    const restarted = createFileIndexes(other, { ...options, lister: { rg: "/nonexistent/rg" } });
    expect(await restarted.search(root, { query: "numbers" })).toEqual([{ path: "src/util/numbers.ts", kind: "file" }]);
    other.close();
  });

  test("the limit defaults to 20 and is clamped to 1–50", async () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`src/file${i}.ts`, ""]));
    const { db, root, options } = setup(many);
    const index = openFileIndex(db, root, options);
    await refreshFileIndex(index);
    expect(searchFiles(index, { query: "file" })).toHaveLength(20);
    expect(searchFiles(index, { query: "file", limit: 500 })).toHaveLength(50);
    expect(searchFiles(index, { query: "file", limit: 0 })).toHaveLength(1);
    expect(searchFiles(index, { query: "" })).toHaveLength(20);
  });
});

describe("frecency", () => {
  test("a use counts half after a half-life, and a bonus never exceeds the cap", () => {
    expect(decayed(2, 0, HALF_LIFE_MS)).toBeCloseTo(1);
    expect(decayed(2, 10, 5)).toBe(2);
    expect(boostOf(0)).toBe(0);
    expect(boostOf(1e6)).toBe(MAX_BOOST);
  });

  const TWINS = { "a/config.ts": "", "b/config.ts": "", "c/my_conf_ig.ts": "", "z/deep/file.ts": "" };
  const config = async (files: ReturnType<typeof createFileIndexes>, root: string) => (await files.search(root, { query: "config" })).map((e) => e.path);

  test("a used file goes first among equal matches, and never above a better kind of match", async () => {
    const { db, root, options } = setup(TWINS);
    const files = createFileIndexes(db, options);
    expect(await config(files, root)).toEqual(["a/config.ts", "b/config.ts", "c/my_conf_ig.ts"]);
    files.recordUse(root, join(root, "b/config.ts"));
    expect(await config(files, root)).toEqual(["b/config.ts", "a/config.ts", "c/my_conf_ig.ts"]);
    for (let i = 0; i < 50; i++) files.recordUse(root, "c/my_conf_ig.ts");
    expect(await config(files, root)).toEqual(["b/config.ts", "a/config.ts", "c/my_conf_ig.ts"]);
  });

  test("uses decay: old uses count less than a recent one", async () => {
    const { db, root, clock, options } = setup(TWINS);
    const files = createFileIndexes(db, options);
    for (let i = 0; i < 4; i++) files.recordUse(root, "a/config.ts");
    files.recordUse(root, "b/config.ts");
    expect((await config(files, root))[0]).toBe("a/config.ts");
    clock.now += 20 * DAY;
    files.recordUse(root, "b/config.ts");
    expect((await config(files, root))[0]).toBe("b/config.ts");
  });

  test("an empty query gives the recently used entries first, most used first, then the shallowest", async () => {
    const { db, root, options } = setup(TWINS);
    const files = createFileIndexes(db, options);
    files.recordUse(root, "z/deep/file.ts");
    files.recordUse(root, "b/config.ts");
    files.recordUse(root, "b/config.ts");
    files.recordUse(root, "gone.ts");
    files.recordUse(root, "/elsewhere/outside.ts");
    const found = await files.search(root, { query: "", limit: 5 });
    expect(found).toEqual([
      { path: "b/config.ts", kind: "file" },
      { path: "z/deep/file.ts", kind: "file" },
      { path: "a", kind: "dir" },
      { path: "b", kind: "dir" },
      { path: "c", kind: "dir" },
    ]);
  });

  test("a use counts in searches rooted above and below where it was recorded", async () => {
    const { db, root, options } = setup(TWINS);
    const files = createFileIndexes(db, options);
    files.recordUse(root, "z/deep/file.ts");
    files.recordUse(join(root, "b"), "config.ts");
    files.recordUse(join(root, "b"), "config.ts");
    // Rooted in a subdirectory: the project's use of z/deep/file.ts is there as deep/file.ts.
    expect((await files.search(join(root, "z"), { query: "", limit: 1 }))[0]).toEqual({ path: "deep/file.ts", kind: "file" });
    // Rooted at the project: b's uses of config.ts are b/config.ts's, and lift it over its twin.
    expect(await config(files, root)).toEqual(["b/config.ts", "a/config.ts", "c/my_conf_ig.ts"]);
    const recent = await files.search(root, { query: "", limit: 2 });
    expect(recent).toEqual([
      { path: "b/config.ts", kind: "file" },
      { path: "z/deep/file.ts", kind: "file" },
    ]);
  });

  test("a use recorded under one directory does not count for the same name under its sibling", async () => {
    const { db, root, options } = setup({ "a/config.ts": "", "a/zeta.ts": "", "b/zeta.ts": "" });
    const files = createFileIndexes(db, options);
    for (let i = 0; i < 3; i++) files.recordUse(join(root, "b"), "zeta.ts");
    expect((await files.search(join(root, "b"), { query: "", limit: 1 })).map((e) => e.path)).toEqual(["zeta.ts"]);
    expect((await files.search(join(root, "a"), { query: "", limit: 2 })).map((e) => e.path)).toEqual(["config.ts", "zeta.ts"]);
  });

  test("uses under the filesystem's root and under look-alike names are placed exactly", () => {
    const { db } = setup({});
    const now = 1_000_000;
    recordUse(db, "/", "/a/b/under-slash.ts", now);
    recordUse(db, "/a", "b/under-a.ts", now);
    recordUse(db, "/a/b/c", "deeper.ts", now);
    recordUse(db, "/a/bc", "look-alike.ts", now);
    recordUse(db, "/a/b-x", "other.ts", now);
    const paths = (root: string) => recentUses(db, root, now).map((u) => u.path).sort();
    expect(paths("/a/b")).toEqual(["c/deeper.ts", "under-a.ts", "under-slash.ts"]);
    expect(paths("/")).toEqual(["a/b-x/other.ts", "a/b/c/deeper.ts", "a/b/under-a.ts", "a/b/under-slash.ts", "a/bc/look-alike.ts"]);
  });

  test("another process's uses count too", async () => {
    const { db, dbFile, root, clock, options } = setup(TWINS);
    const files = createFileIndexes(db, options);
    await files.search(root, { query: "config" });
    const other = openDb(dbFile);
    createFileIndexes(other, options).recordUse(root, "b/config.ts");
    other.close();
    clock.now += 2_000;
    expect((await files.search(root, { query: "config" }))[0]?.path).toBe("b/config.ts");
  });
});
