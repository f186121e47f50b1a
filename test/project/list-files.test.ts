import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type FileLister, listFiles } from "../../src/project/list-files.ts";
import { cleanup, tempDir, writeFiles } from "./tree.ts";
import { tool } from "../support/tools.ts";

afterAll(cleanup);

const rg = tool("rg", "ripgrep", "the ripgrep half of these tests");
const listers: [string, string | null][] = [
  ["ripgrep", rg],
  ["the walker", null],
];

/** A home whose ~/.gitconfig names a global excludes file that leaves out *.swp. */
function homeWithExcludesFile(): string {
  const home = tempDir();
  writeFiles(home, { ".gitconfig": "[user]\n\tname = t\n[core]\n\texcludesFile = ~/global-ignore\n", "global-ignore": "*.swp\n" });
  return home;
}

/** A repository with every kind of ignore rule ripgrep honours, hidden files, `.git` and a symlink. */
function project(): string {
  return writeFiles(tempDir(), {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/info/exclude": "excluded.txt\n",
    ".gitignore": "node_modules/\n*.log\nbuild/\n",
    ".ignore": "secret/\n",
    ".hidden/config.json": "{}",
    "README.md": "",
    "excluded.txt": "",
    "notes.swp": "",
    "src/index.ts": "",
    "src/app.log": "",
    "src/nested/.gitignore": "generated.ts\n!keep.log\n",
    "src/nested/generated.ts": "",
    "src/nested/keep.log": "",
    "src/nested/util.ts": "",
    "node_modules/pkg/index.js": "",
    "build/out.js": "",
    "secret/key.txt": "",
    "link.ts": { link: "src/index.ts" },
  });
}

const EXPECTED = [".gitignore", ".hidden/config.json", ".ignore", "README.md", "src/index.ts", "src/nested/.gitignore", "src/nested/keep.log", "src/nested/util.ts"];

const sorted = (list: string[]) => [...list].sort();

describe.each(listers)("listing with %s", (name, rgPath) => {
  const skip = name === "ripgrep" && !rgPath;
  const lister = (env: Record<string, string>): FileLister => ({ rg: rgPath, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env } });

  test.skipIf(skip)("leaves out what nested .gitignore, .ignore, .git/info/exclude and git's global excludes name, .git and symlinks", async () => {
    const files = await listFiles(project(), lister({ HOME: homeWithExcludesFile() }));
    expect(sorted(files)).toEqual(EXPECTED);
  });

  test.skipIf(skip)("finds the global excludes at $XDG_CONFIG_HOME/git/ignore when no config names one", async () => {
    const home = tempDir();
    const xdg = writeFiles(tempDir(), { "git/ignore": "*.swp\nREADME.md\n" });
    const files = await listFiles(project(), lister({ HOME: home, XDG_CONFIG_HOME: xdg }));
    expect(sorted(files)).toEqual(EXPECTED.filter((f) => f !== "README.md"));
  });

  test.skipIf(skip)("applies ignore files above the root: .ignore always, .gitignore only up to the repository's top", async () => {
    const outer = writeFiles(tempDir(), {
      ".gitignore": "outer-git.txt\n",
      ".ignore": "outer-ignore.txt\n",
      "repo/.git/HEAD": "",
      "repo/.gitignore": "repo-git.txt\n",
      "repo/sub/outer-git.txt": "",
      "repo/sub/outer-ignore.txt": "",
      "repo/sub/repo-git.txt": "",
      "repo/sub/kept.txt": "",
      "plain/sub/outer-git.txt": "",
      "plain/sub/kept.txt": "",
    });
    const env = { HOME: tempDir() };
    expect(sorted(await listFiles(join(outer, "repo/sub"), lister(env)))).toEqual(["kept.txt", "outer-git.txt"]);
    expect(sorted(await listFiles(join(outer, "plain"), lister(env)))).toEqual(["sub/kept.txt"]);
  });
});

test.skipIf(!rg)("ripgrep and the walker list the same set", async () => {
  const root = project();
  const home = homeWithExcludesFile();
  const env = { PATH: process.env.PATH ?? "", HOME: home };
  const [withRg, withWalker] = await Promise.all([listFiles(root, { rg, env }), listFiles(root, { rg: null, env })]);
  expect(sorted(withRg)).toEqual(sorted(withWalker));
});
