import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Change, ProjectFiles } from "../../src/engine/project-files.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-files-"));
  writeFileSync(join(dir, "a.txt"), "a before\n");
  mkdirSync(join(dir, "d", "e"), { recursive: true });
  writeFileSync(join(dir, "d", "b.txt"), "b\n");
  writeFileSync(join(dir, "d", "e", "c.txt"), "c\n");
  writeFileSync(join(dir, "gone.txt"), "gone\n");
  mkdirSync(join(dir, ".git"));
  writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sh = (command: string) => Bun.spawnSync(["sh", "-c", command], { cwd: dir });

/** A window's changes as `path: before → after`, content kept for the before side when there is. */
function described(changes: Change[]): string[] {
  return changes
    .map((c) => `${c.rel}: ${c.before ? "was" : "absent"} → ${c.after ? "is" : "absent"}${c.kept ? ` (kept ${JSON.stringify(Buffer.from(c.kept).toString())})` : ""}`)
    .sort();
}

for (const inotify of [true, false]) {
  describe(inotify ? "followed by inotify" : "followed by walking", () => {
    test("a command's changes: changed, created, deleted, a directory moved and one made (the directories too), but never .git", async () => {
      const files = new ProjectFiles(dir, { inotify });
      files.end(files.begin());
      expect(files.watching).toBe(inotify);
      const window = files.begin();
      sh("echo changed > a.txt && rm gone.txt && mv d moved && mkdir -p n/m && echo x > n/m/x.txt && echo y > .git/y");
      expect(described(files.end(window))).toEqual([
        'a.txt: was → is (kept "a before\\n")',
        "d/: was → absent",
        'd/b.txt: was → absent (kept "b\\n")',
        "d/e/: was → absent",
        'd/e/c.txt: was → absent (kept "c\\n")',
        'gone.txt: was → absent (kept "gone\\n")',
        "moved/: absent → is",
        "moved/b.txt: absent → is",
        "moved/e/: absent → is",
        "moved/e/c.txt: absent → is",
        "n/: absent → is",
        "n/m/: absent → is",
        "n/m/x.txt: absent → is",
      ]);
      // The moved directory is followed where it went.
      const next = files.begin();
      sh("echo again > moved/e/c.txt && echo z > n/m/z.txt");
      expect(described(files.end(next))).toEqual(['moved/e/c.txt: was → is (kept "c\\n")', "n/m/z.txt: absent → is"]);
      files.close();
    });

    test("what changed before a window opened is not the window's, and its content then is what is kept", async () => {
      const files = new ProjectFiles(dir, { inotify });
      files.end(files.begin());
      writeFileSync(join(dir, "a.txt"), "the person's\n");
      const window = files.begin();
      sh("echo by-command > a.txt");
      expect(described(files.end(window))).toEqual(['a.txt: was → is (kept "the person\'s\\n")']);
      files.close();
    });

    test("lembas's state dir inside the project is never followed", async () => {
      mkdirSync(join(dir, "state"));
      const files = new ProjectFiles(dir, { inotify, exclude: [join(dir, "state")] });
      files.end(files.begin());
      const window = files.begin();
      sh("echo db > state/lembas.db && echo changed > a.txt");
      expect(described(files.end(window))).toEqual(['a.txt: was → is (kept "a before\\n")']);
      files.close();
    });

    test("a project past its bound of files is not followed, and keeps nothing", async () => {
      const files = new ProjectFiles(dir, { inotify, maxFiles: 3 });
      files.end(files.begin());
      expect(files.tooLarge).toBe(true);
      expect(files.watching).toBe(false);
      const window = files.begin();
      sh("echo changed > a.txt");
      expect(files.end(window)).toEqual([]);
    });

    test("past its bound of watched directories, it walks instead, and misses nothing", async () => {
      const files = new ProjectFiles(dir, { inotify, maxDirs: 2 });
      files.end(files.begin());
      expect(files.watching).toBe(false);
      const window = files.begin();
      sh("echo changed > d/e/c.txt && echo new > d/new.txt");
      expect(described(files.end(window))).toEqual(['d/e/c.txt: was → is (kept "c\\n")', "d/new.txt: absent → is"]);
    });

    test("two windows open at once both see a change made while both were open", async () => {
      const files = new ProjectFiles(dir, { inotify });
      files.end(files.begin());
      const one = files.begin();
      const two = files.begin();
      sh("echo both > a.txt");
      expect(described(files.end(one))).toEqual(['a.txt: was → is (kept "a before\\n")']);
      expect(described(files.end(two))).toEqual(['a.txt: was → is (kept "a before\\n")']);
      files.close();
    });
  });
}

test("when inotify's queue overflows, a walk finds every change all the same", async () => {
  const files = new ProjectFiles(dir);
  files.end(files.begin());
  const window = files.begin();
  // Three events a file, past the kernel's 16,384 queued events.
  sh("mkdir many && cd many && seq 1 8000 | xargs touch && echo changed > ../a.txt");
  const changes = files.end(window);
  expect(changes.filter((c) => c.rel.startsWith("many/") && !c.before && c.after)).toHaveLength(8001);
  expect(described(changes.filter((c) => c.rel === "many/"))).toEqual(["many/: absent → is"]);
  expect(described(changes.filter((c) => c.rel === "a.txt"))).toEqual(['a.txt: was → is (kept "a before\\n")']);
  // Still watched afterwards.
  const next = files.begin();
  sh("echo again > many/77");
  expect(described(files.end(next))).toEqual([`many/77: was → is (kept "")`]);
  files.close();
});
