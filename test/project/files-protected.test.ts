import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { createFileIndexes, entriesOf, openFileIndex, refreshFileIndex, searchFiles } from "../../src/project/files.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { openDb } from "../../src/store/db.ts";
import { saveFileChanges } from "../../src/store/files.ts";
import { cleanup, tempDir, writeFiles } from "./tree.ts";
import { tool } from "../support/tools.ts";

afterAll(cleanup);

/** A repository whose .gitignore leaves its secrets untracked but not ignored. */
const PROJECT = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".gitignore": "dist/\n",
  ".env": "OPENAI_API_KEY=sk-live-1\n",
  ".envrc": "",
  ".env.example": "",
  "api/.env.local": "",
  "id_rsa": "",
  "certs/server.pem": "",
  ".ssh/config": "",
  "infra/prod.tf": "",
  "src/env.ts": "",
  "src/environment.ts": "",
};
const SECRET = /(^|\/)(\.env|id_rsa|server\.pem|\.ssh)/;

const rg = tool("rg", "ripgrep", "the ripgrep half of these tests");
const listers: [string, string | null][] = [
  ["ripgrep", rg],
  ["the walker", null],
];

function setup(lister: string | null) {
  const db = openDb(join(tempDir(), "lembas.db"));
  const root = writeFiles(tempDir(), PROJECT);
  return { db, root, options: { lister: { rg: lister, env: { PATH: process.env.PATH ?? "", HOME: tempDir() } } } };
}

describe.each(listers)("the @ picker's index with %s", (name, lister) => {
  const skip = name === "ripgrep" && !lister;

  test.skipIf(skip)("lists no secret, not even an untracked one nothing ignores: a query for env finds only the ordinary files", async () => {
    const { db, root, options } = setup(lister);
    const index = openFileIndex(db, root, options);
    await refreshFileIndex(index);
    expect([...entriesOf(index).keys()].filter((path) => SECRET.test(path))).toEqual([]);
    expect(searchFiles(index, { query: "env", limit: 50 }).map((e) => e.path).sort()).toEqual(["src/env.ts", "src/environment.ts"]);
    expect(searchFiles(index, { query: "id_rsa" })).toEqual([]);
  });

  test.skipIf(skip)("leaves out what config.yaml protects and what is in the config and state dirs", async () => {
    const { db, root, options } = setup(lister);
    writeFiles(root, { "state/lembas.db": "" });
    const files = createFileIndexes(db, { ...options, protectedPaths: protectedPaths(["infra/**"], [join(root, "state")]) });
    const found = (await files.search(root, { query: "", limit: 50 })).map((e) => e.path);
    expect(found.sort()).toEqual([".gitignore", "src", "src/env.ts", "src/environment.ts"]);
  });

  test.skipIf(skip)("leaves out a state dir named with a trailing slash, secrets in any case, and nothing through a symlinked dir", async () => {
    const { db, root, options } = setup(lister);
    writeFiles(root, { ".lembas/logs/service.log": "", ".ENV": "", "keys/ID_RSA": "", "Server.PEM": "", "view": { link: "infra" }, "keys2": { link: ".ssh" } });
    const files = createFileIndexes(db, { ...options, protectedPaths: protectedPaths(["infra/**"], [`${root}/.lembas/`]) });
    const found = (await files.search(root, { query: "", limit: 50 })).map((e) => e.path);
    expect(found.sort()).toEqual([".gitignore", "src", "src/env.ts", "src/environment.ts"]);
  });

  test.skipIf(skip)("a root reached through a symlink, with the state dir named by its real path: the state dir is left out", async () => {
    const { db, root, options } = setup(lister);
    writeFiles(root, { ".lembas/logs/service.log": "" });
    const link = join(tempDir(), "link");
    symlinkSync(root, link);
    const files = createFileIndexes(db, { ...options, protectedPaths: protectedPaths(["infra/**"], [join(root, ".lembas")]) });
    const found = (await files.search(link, { query: "", limit: 50 })).map((e) => e.path);
    expect(found.sort()).toEqual([".gitignore", "src", "src/env.ts", "src/environment.ts"]);
  });
});

test("a secret an older version stored is not offered, and goes from the store", async () => {
  const { db, root, options } = setup(rg);
  saveFileChanges(db, root, [{ path: ".env", kind: "file" }, { path: "README.md", kind: "file" }], []);
  const index = openFileIndex(db, root, options);
  expect(searchFiles(index, { query: "", limit: 50 })).toEqual([{ path: "README.md", kind: "file" }]);
  expect(searchFiles(openFileIndex(db, root, { ...options, protectedPaths: protectedPaths([], []) }), { query: "env" })).toEqual([]);
  const stored = db.query("SELECT path FROM files WHERE root = ?").all(root) as { path: string }[];
  expect(stored.map((row) => row.path)).toEqual(["README.md"]);
});
