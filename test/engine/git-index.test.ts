import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blobId, parseIndex, readBlobs } from "../../src/engine/git-index.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-index-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir }).stdout.toString();

for (const version of [2, 3, 4]) {
  test(`an index of version ${version} reads as git lists it, without intent-to-add entries`, () => {
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    writeFileSync(join(dir, "a.txt"), "a\n");
    writeFileSync(join(dir, "src", "b.ts"), "b\n");
    writeFileSync(join(dir, "src", "deep", "c.ts"), "c\n");
    writeFileSync(join(dir, "later.txt"), "later\n");
    git("init", "-q");
    git("add", "a.txt", "src");
    git("add", "-N", "later.txt");
    git("update-index", "--index-version", String(version));
    const listed = new Map(
      git("ls-files", "-s")
        .trim()
        .split("\n")
        .map((line) => {
          const [meta, path] = line.split("\t");
          return [path ?? "", meta?.split(" ")[1] ?? ""] as const;
        })
        .filter(([path]) => path !== "later.txt"),
    );
    const parsed = parseIndex(readFileSync(join(dir, ".git", "index")));
    expect(new Map([...parsed].map(([path, e]) => [path, e.sha]))).toEqual(listed);
    expect(parsed.get("src/deep/c.ts")?.size).toBe(2);
  });
}

test("blobs are read from the project's objects by id; an unknown id is left out", async () => {
  writeFileSync(join(dir, "a.txt"), "a\n");
  git("init", "-q");
  git("add", "a.txt");
  const id = blobId(Buffer.from("a\n"));
  const blobs = await readBlobs(join(dir, ".git"), [id, "0".repeat(40)]);
  expect([...blobs.keys()]).toEqual([id]);
  expect(Buffer.from(blobs.get(id) ?? []).toString()).toBe("a\n");
});

test("what is not an index reads as empty", () => {
  expect(parseIndex(Buffer.from("not an index at all"))).toEqual(new Map());
});

test("reading blobs from a git dir git refuses, with more ids than a pipe holds, settles with nothing", async () => {
  const ids = Array.from({ length: 20000 }, (_, i) => i.toString(16).padStart(40, "0"));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const result = await Promise.race([readBlobs(join(tmpdir(), "lembas-not-a-git-dir"), ids).then((m) => m.size), Bun.sleep(10_000).then(() => "hung")]);
    await Bun.sleep(50);
    expect(result).toBe(0);
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
}, 20_000);
