import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { runnerFiles } from "../../src/engine/hook-runners.ts";
import { approveProjectHooks, projectHooks } from "../../src/engine/project-hooks.ts";
import { openDb } from "../../src/store/db.ts";
import { trustDir } from "../../src/store/trust.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "lembas-runners-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What COMMAND's runners read, from the project's root (or CWD), as paths from the root. */
const read = (command: string, cwd = root) => runnerFiles(command, root, cwd).map((p) => relative(root, p));
const NODE = [".npmrc", "package.json"];
const MAKEFILES = ["GNUmakefile", "Makefile", "makefile"];

describe("the files a hook's runner reads", () => {
  test("npm, pnpm, yarn and bun read package.json (and their own settings), behind env, timeout and sh -c", () => {
    expect(read("npm test")).toEqual(NODE);
    expect(read("FOO=1 timeout 60 npm run check")).toEqual(NODE);
    expect(read("sh -c 'npx tsc --noEmit'")).toEqual(NODE);
    expect(read("pnpm lint")).toEqual([...NODE, "pnpm-workspace.yaml"]);
    expect(read("yarn check")).toEqual([".yarnrc", ".yarnrc.yml", "package.json"]);
    expect(read("bun test && echo done")).toEqual(["bunfig.toml", "package.json"]);
  });

  test("from the hook's directory up to the project's root, where the line cds to, or a runner's own directory flag", () => {
    mkdirSync(join(root, "web", "src"), { recursive: true });
    expect(read("bun run check", join(root, "web", "src"))).toEqual(["web/src/bunfig.toml", "web/src/package.json", "web/bunfig.toml", "web/package.json", "bunfig.toml", "package.json"]);
    expect(read("cd web && npm test")).toEqual(["web/.npmrc", "web/package.json", ...NODE]);
    expect(read('sh -c "cd \\"$CLAUDE_PROJECT_DIR/web\\" && make lint"')).toEqual(MAKEFILES.map((m) => `web/${m}`));
    expect(read("make -C web -f build.mk check")).toEqual(["web/build.mk", ...MAKEFILES.map((m) => `web/${m}`)]);
    expect(read("make --file=tools/ci.mk")).toEqual(["tools/ci.mk", ...MAKEFILES]);
  });

  test("just's justfile in any case, task's Taskfile, uv's and poetry's pyproject.toml, deno's deno.json", () => {
    writeFileSync(join(root, "JustFile"), "lint:\n\ttrue\n");
    expect(read("just lint")).toEqual(["JustFile", "justfile"]);
    expect(read("task check")).toContain("Taskfile.yml");
    expect(read("uv run pytest")).toEqual(["pyproject.toml", "uv.toml"]);
    expect(read("poetry run pytest")).toEqual(["poetry.toml", "pyproject.toml"]);
    // task there is deno's word, but taken as the runner too: more is only asked again more often.
    expect(read("deno task check")).toEqual(expect.arrayContaining(["deno.json", "deno.jsonc", "package.json"]));
  });

  test("nothing outside the project, nothing for a line with no runner, and cargo's build scripts are out of reach", () => {
    expect(read("cd /usr && make")).toEqual([]);
    expect(read("make -C /usr check")).toEqual([]);
    expect(read("./check.sh | tee out.txt")).toEqual([]);
    expect(read("cargo build")).toEqual([]);
  });
});

describe("a project hook's approval", () => {
  test("covers its runner's file: a package.json written nearer the hook's directory, or a changed one, waits for approval again", () => {
    const db = openDb(":memory:");
    try {
      mkdirSync(join(root, ".agent"));
      mkdirSync(join(root, "web"));
      writeFileSync(join(root, ".agent", "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "npm run check" }] }] } }));
      writeFileSync(join(root, "package.json"), '{"scripts":{"check":"true"}}');
      trustDir(db, root);
      const state = (cwd = root) => projectHooks(root, db, { cwd }).map((f) => f.state);
      for (const file of projectHooks(root, db, { cwd: join(root, "web") })) approveProjectHooks(db, file);
      expect(projectHooks(root, db, { cwd: join(root, "web") })[0]?.scripts).toEqual([join(root, "package.json")]);
      expect(state(join(root, "web"))).toEqual(["approved"]);
      writeFileSync(join(root, "web", "package.json"), '{"scripts":{"check":"id"}}');
      expect(state(join(root, "web"))).toEqual(["needs-approval"]);
      // From the root the hook runs other files (not web's): approved there on their own.
      expect(state()).toEqual(["needs-approval"]);
      for (const file of projectHooks(root, db)) approveProjectHooks(db, file);
      expect(state()).toEqual(["approved"]);
      writeFileSync(join(root, "package.json"), '{"scripts":{"check":"id"}}');
      expect(state()).toEqual(["needs-approval"]);
    } finally {
      db.close();
    }
  });
});
