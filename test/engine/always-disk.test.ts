import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decide } from "../../src/engine/permissions.ts";
import { realPath } from "../../src/real-path.ts";
import { protectedPaths } from "../../src/project/protected.ts";

/** A project on disk with a directory outside it, for what only the disk can tell. */
let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "lembas-always-")));
  root = join(base, "project");
  outside = join(base, "outside");
  mkdirSync(join(outside, "deep"), { recursive: true });
  mkdirSync(join(root, "vendor", "x"), { recursive: true });
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, ".env"), "KEY=1\n");
  writeFileSync(join(root, "README.md"), "hi\n");
  writeFileSync(join(root, "test.sh"), "echo root\n");
  writeFileSync(join(root, "vendor", "x", "test.sh"), "echo vendor\n");
  writeFileSync(join(root, "build.js"), "");
  writeFileSync(join(root, "src", "server.key"), "");
  writeFileSync(join(root, "vendor", "x", "build.js"), "");
  symlinkSync(join(outside, "deep"), join(root, "link"));
  symlinkSync(join(outside, "newfile"), join(root, "dangle"));
  symlinkSync(".env", join(root, "notes"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const rules = () => protectedPaths([], [join(base, "config")]);
const exec = (command: string, allowed: string[] = [], cwd = root) =>
  decide({ mode: "edit", permission: "exec", toolName: "bash", paths: [], command, cwd, root, protectedPaths: rules(), allowed: new Set(allowed) });

/** Runs the line with real bash in the project. */
function bash(line: string, cwd = root): void {
  Bun.spawnSync(["bash", "-c", line], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
}

describe("redirections through symlinks, judged as bash walks them", () => {
  test("link/../escaped, with link pointing outside, writes outside: bash agrees, and always is never offered", () => {
    const line = "echo hi > link/../escaped";
    expect(exec(line, ["exec:echo"])).toMatchObject({ action: "ask", always: null });
    bash(line);
    expect(existsSync(join(outside, "escaped"))).toBe(true);
  });

  test("a dangling symlink pointing outside is written through: bash agrees, and always is never offered", () => {
    for (const line of ["echo hi > dangle", "echo hi | tee dangle", "touch dangle"]) {
      expect({ line, decision: exec(line, ["exec:echo", "exec:tee", "exec:touch"]) }).toMatchObject({ line, decision: { action: "ask", always: null } });
    }
    bash("echo hi > dangle");
    expect(existsSync(join(outside, "newfile"))).toBe(true);
  });

  test("realPath follows a dangling symlink to where a write would land", () => {
    expect(realPath(join(root, "dangle"))).toBe(join(outside, "newfile"));
    expect(realPath(`${root}/link/../escaped`)).toBe(join(outside, "escaped"));
    expect(realPath(join(root, "src", "new.ts"))).toBe(join(root, "src", "new.ts"));
  });

  test("cd link/.. may end outside (bash falls back to the walk through the link), so it asks; a plain cd and write are fine", () => {
    expect(exec("cd link/.. && ls", ["exec:ls"]).action).toBe("ask");
    expect(exec("cd src && echo hi > x.txt", ["exec:echo"]).action).toBe("allow");
  });
});

describe("session keys never let a command read a protected file", () => {
  const keys = ["exec:cat", "exec:grep", "exec:cp", "exec:head", "exec:rg", "exec:tar", "exec:find", "exec:ls", "exec:wc", "exec:chmod", "exec:gzip"];

  test("a word naming a protected path, as written, through .., through a symlink or by a glob, asks with no always", () => {
    for (const [line, cwd] of [
      ["cat .env", root],
      ["cat ./src/../.env", root],
      ["cat notes", root],
      ["cat ../.env", join(root, "src")],
      ["cd src && cat ../.env", root],
      ["cat .e*", root],
      ["head -n1 .en?", root],
      ["cat *", join(root, "src")],
      ["cat < .env", root],
      ["cp .env leak.txt", root],
      ["wc --files0-from=.env", root],
      ["cat $HOME/x", root],
      ["cat ~/.ssh/id_rsa", root],
      ["cd .git && cat config", root],
      ["cat HEAD:.env", root],
      ["cat **/*.key", root],
    ] as const) {
      expect({ line, decision: exec(line, keys, cwd) }).toMatchObject({ line, decision: { action: "ask", always: null } });
    }
  });

  test("a recursive reader never matches a session key: the tree may hold protected files", () => {
    for (const line of ["grep -r KEY .", "grep -rn KEY", "grep --recursive KEY src", "rg KEY", "find . -name x", "tar czf out.tgz .", "cp -r . ../copy", "chmod -R 777 .", "gzip -r src"]) {
      expect({ line, decision: exec(line, keys) }).toMatchObject({ line, decision: { action: "ask", always: null } });
    }
  });

  test("what names no protected path still runs under its key", () => {
    for (const line of ["cat README.md", "grep KEY README.md", "ls vendor", "cat vendor/x/*", "head -n1 README.md"]) {
      expect({ line, action: exec(line, keys).action }).toEqual({ line, action: "allow" });
    }
  });
});

describe("a glob too costly to scan is not scanned", () => {
  test("wildcards at many levels (a synchronous scan of half the disk) count as maybe protected: no session key", () => {
    expect(exec("cat /usr/*/*/*/nothing-here", ["exec:cat"])).toMatchObject({ action: "ask", always: null });
    expect(exec("cat src/*.ts", ["exec:cat"])).toMatchObject({ action: "allow" });
  });
});

describe("a program or script is keyed by the file it is", () => {
  test("./test.sh allowed at the root does not allow vendor/x's test.sh", () => {
    const first = exec("./test.sh");
    expect(first.always?.keys).toEqual(["exec:./test.sh"]);
    const allowed = first.always?.keys ?? [];
    expect(exec("./test.sh", allowed).action).toBe("allow");
    expect(exec("cd vendor/x && ./test.sh", allowed)).toMatchObject({ action: "ask", always: null });
    expect(exec("./test.sh", allowed, join(root, "vendor", "x"))).toMatchObject({ action: "ask", always: { keys: ["exec:./vendor/x/test.sh"] } });
    expect(exec("../../test.sh", allowed, join(root, "vendor", "x")).action).toBe("allow");
  });

  test("node build.js is keyed by its script, and a cd before it makes the script uncertain", () => {
    const allowed = exec("node build.js").always?.keys ?? [];
    expect(allowed).toEqual(["exec:node ./build.js"]);
    expect(exec("cd vendor/x && node build.js", allowed)).toMatchObject({ action: "ask", always: null });
    expect(exec("node build.js", allowed, join(root, "vendor", "x")).always?.keys).toEqual(["exec:node ./vendor/x/build.js"]);
    expect(exec("./gradlew build").always?.keys).toEqual(["exec:./gradlew build"]);
  });
});

describe("builtins that run $(…) from a quoted argument", () => {
  test("bash runs the command hidden in each, and none is ever allowed for a session", () => {
    for (const line of [
      "printf -v 'a[$(touch marker)]' x",
      "test -v 'a[$(touch marker)]'",
      "[ -v 'a[$(touch marker)]' ]",
      "read 'a[$(touch marker)]' <<< x",
      "let 'a[$(touch marker)]=1'",
      "mapfile -C 'touch marker;:' -c 1 a <<< q",
      "readarray -C 'touch marker;:' -c 1 a <<< q",
      "compgen -C 'touch marker' x",
      "declare 'a[$(touch marker)]=1'",
      "typeset 'a[$(touch marker)]=1'",
      "[[ -v 'a[$(touch marker)]' ]]",
    ]) {
      const dir = mkdtempSync(join(base, "run-"));
      bash(line, dir);
      const program = line.split(" ")[0] ?? "";
      expect({ line, ran: existsSync(join(dir, "marker")), decision: exec(line, [`exec:${program}`]) }).toMatchObject({ line, ran: true, decision: { action: "ask", always: null } });
    }
  });
});
