import { describe, expect, test } from "bun:test";
import type { Mode } from "../../src/config/schema.ts";
import { decide } from "../../src/engine/permissions.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import type { PermissionClass } from "../../src/tools/tool.ts";

const root = "/home/p/project";
const rules = protectedPaths(["secrets/**"], ["/home/p/.config/lembas", "/home/p/.local/state/lembas"]);
const check = (mode: Mode, permission: PermissionClass, paths: string[], command?: string, allowed: string[] = []) =>
  decide({ mode, permission, toolName: "t", paths, root, protectedPaths: rules, allowed: new Set(allowed), ...(command ? { command } : {}) }).action;

describe("the permission matrix", () => {
  const inside = [`${root}/src/a.ts`];
  const outside = ["/etc/hosts"];
  const cases: [Mode, PermissionClass, string[], "allow" | "ask" | "deny"][] = [
    ["plan", "read", inside, "allow"],
    ["plan", "write", inside, "deny"],
    ["plan", "exec", [], "deny"],
    ["plan", "none", [], "allow"],
    ["plan", "read", outside, "ask"],
    ["manual", "read", inside, "allow"],
    ["manual", "write", inside, "ask"],
    ["manual", "exec", [], "ask"],
    ["manual", "write", outside, "ask"],
    ["edit", "read", inside, "allow"],
    ["edit", "write", inside, "allow"],
    ["edit", "exec", [], "ask"],
    ["edit", "write", outside, "ask"],
    ["edit", "read", outside, "ask"],
    ["auto", "write", inside, "allow"],
    ["auto", "exec", [], "allow"],
    ["auto", "write", outside, "ask"],
    ["auto", "read", outside, "ask"],
  ];
  for (const [mode, permission, paths, expected] of cases) {
    test(`${mode}: ${permission} ${paths[0] ?? "(no path)"} → ${expected}`, () => {
      expect(check(mode, permission, paths, permission === "exec" ? "npm test" : undefined)).toBe(expected);
    });
  }

  test("protected paths ask in every mode, even auto, and never offer always", () => {
    for (const path of [`${root}/.env`, `${root}/.env.local`, `${root}/.git/config`, `${root}/keys/id_ed25519`, `${root}/secrets/a.txt`, "/home/p/.config/lembas/config.yaml"]) {
      for (const mode of ["manual", "edit", "auto"] as Mode[]) expect(check(mode, "write", [path])).toBe("ask");
      expect(check("auto", "read", [path])).toBe("ask");
      const decision = decide({ mode: "auto", permission: "write", toolName: "write", paths: [path], root, protectedPaths: rules, allowed: new Set() });
      expect(decision.always).toBeNull();
    }
  });

  test("allowed for the session: a command's program and subcommand, and writes in the project", () => {
    expect(check("edit", "exec", [], "npm test", ["exec:npm test"])).toBe("allow");
    expect(check("edit", "exec", [], "npm publish", ["exec:npm test"])).toBe("ask");
    expect(check("edit", "exec", [], "npx rimraf /", ["exec:npm test"])).toBe("ask");
    expect(check("manual", "write", [`${root}/a`], undefined, ["write:project"])).toBe("allow");
  });
});

/** decide() for a command line in edit mode, run from the root (or cwd). */
const exec = (command: string, allowed: string[] = [], cwd = root) =>
  decide({ mode: "edit", permission: "exec", toolName: "bash", paths: [], command, cwd, root, protectedPaths: rules, allowed: new Set(allowed) });

describe('what "always" allows for a command line', () => {
  test("a compound line is offered with every command it runs named, and then runs unasked", () => {
    const first = exec("cd pkg && npm test");
    expect(first.action).toBe("ask");
    expect(first.always).toEqual({ keys: ["exec:npm test"], label: "npm test commands (they run the project's own scripts, as those then are), for this session", rules: ["Bash(npm test:*)"] });
    expect(exec("cd pkg && npm test", first.always?.keys).action).toBe("allow");
    const two = exec("git status && npm test | tail -5");
    expect(two.always?.label).toBe("git status, npm test and tail commands (they run the project's own scripts, as those then are), for this session");
    expect(exec("git status; npm test", ["exec:git status", "exec:npm test"]).action).toBe("allow");
  });

  test("only what is not allowed yet is offered", () => {
    expect(exec("git status && npm test", ["exec:git status"]).always).toEqual({ keys: ["exec:npm test"], label: "npm test commands (they run the project's own scripts, as those then are), for this session", rules: ["Bash(npm test:*)"] });
  });

  test("git status allowed does not allow git push --force, nor git with options before the subcommand", () => {
    const allowed = exec("git status").always?.keys ?? [];
    expect(allowed).toEqual(["exec:git status"]);
    expect(exec("git status --short", allowed).action).toBe("allow");
    expect(exec("git --no-pager status", allowed).action).toBe("allow");
    expect(exec("git push --force", allowed).action).toBe("ask");
    expect(exec("/usr/bin/git push --force").always?.keys).toEqual(["exec:/usr/bin/git push"]);
    expect(exec("git -c core.pager=evil status", allowed)).toMatchObject({ action: "ask", always: null });
    expect(exec("git status && git push --force", allowed).always?.label).toBe("git push commands, for this session");
  });

  test("programs without subcommands are keyed by the program; runners by what they run", () => {
    expect(exec("ls -la src").always?.keys).toEqual(["exec:ls"]);
    expect(exec("ls 'my notes' \"a b\"").always?.keys).toEqual(["exec:ls"]);
    expect(exec("npm run build").always?.keys).toEqual(["exec:npm run build"]);
    expect(exec("npm run deploy", ["exec:npm run build"]).action).toBe("ask");
    expect(exec("npx tsc --noEmit").always?.keys).toEqual(["exec:npx tsc"]);
    expect(exec("node build.js").always?.keys).toEqual(["exec:node ./build.js"]);
    expect(exec("python3 -m pytest -q").always?.keys).toEqual(["exec:python3 -m pytest"]);
    expect(exec('node -e "process.exit()"').always).toBeNull();
    expect(exec("python3 -c 'import os'").always).toBeNull();
  });

  test("a command with assignments before it is not allowed by an always for the bare program", () => {
    expect(exec("LD_PRELOAD=./x.so ls", ["exec:ls"])).toMatchObject({ action: "ask", always: null });
    expect(exec("CI=1 npm test", ["exec:npm test"])).toMatchObject({ action: "ask", always: null });
    expect(exec("PATH=. ; ls", ["exec:ls"])).toMatchObject({ action: "ask", always: null });
  });

  test("never offered for a line that substitutes, wraps, or changes the shell", () => {
    const lines = [
      "echo $(cat ~/.ssh/id_rsa)",
      "echo `id`",
      'echo "$(id)"',
      "diff <(ls a) <(ls b)",
      "echo $((x[$(id)]))",
      "echo ${x@P}",
      "echo ${HOME:-$(id)}",
      "eval ls",
      "sh -c ls",
      "bash -c 'ls'",
      "sudo make",
      "env ls",
      "xargs rm",
      "exec ls",
      "nohup ls",
      "rm -rf build",
      "/bin/rm -rf build",
      "'git status' --force",
      "git 'status --force'",
      "'' ls",
      "/usr/bin/env ls",
      "./node_modules/.bin/../../bash -c ls",
      "export PATH=.:$PATH && ls",
      "find . -name x -exec rm {} ;",
      "(cd pkg && npm test)",
      "if true; then ls; fi",
      "$CMD status",
      "g* status",
      "{rm,-rf,x}",
      "cat <<EOF\n$(id)\nEOF",
      "git()  { rm -rf ~; }; git status",
    ];
    for (const line of lines) expect({ line, always: exec(line, ["exec:ls", "exec:git status", "exec:cat", "exec:echo", "exec:npm test"]).always }).toEqual({ line, always: null });
    for (const line of lines) expect({ line, action: exec(line, ["exec:ls", "exec:git status", "exec:cat", "exec:echo", "exec:npm test", "exec:diff"]).action }).toEqual({ line, action: "ask" });
  });

  test("never offered for a line that writes outside the project or to a protected path", () => {
    for (const line of [
      "echo hi > /tmp/outside",
      "echo hi >> ../up.txt",
      "echo hi &> /etc/x",
      "echo hi >& /tmp/x",
      "echo hi > ~/x",
      "echo hi > $OUT",
      "echo hi > .env",
      "echo hi > .git/hooks/pre-commit",
      "cd src && echo hi > ../../x",
      // Were the cd to fail, ../x.txt would be beside the project.
      "cd src && echo hi > ../x.txt",
    ]) {
      expect({ line, decision: exec(line, ["exec:echo"]) }).toMatchObject({ line, decision: { action: "ask", always: null } });
    }
  });

  test("redirections inside the project, to /dev/null and to other descriptors are fine", () => {
    for (const line of ["echo hi > out.txt", "npm test > log.txt 2>&1", "npm test 2>/dev/null", "echo hi >&2", "cd src && echo hi > x.txt", "sort < /etc/hosts"]) {
      expect({ line, always: exec(line).always !== null }).toEqual({ line, always: true });
    }
  });

  test("cd counts as harmless only into the project", () => {
    expect(exec("cd /tmp && ls", ["exec:ls"]).always).toBeNull();
    expect(exec("cd .. && ls", ["exec:ls"]).always).toBeNull();
    expect(exec("cd && ls", ["exec:ls"]).always).toBeNull();
    expect(exec("cd src && ls", ["exec:ls"]).action).toBe("allow");
    expect(exec("cd src && ls", ["exec:ls"], `${root}/pkg`).action).toBe("allow");
    expect(exec("cd src")).toMatchObject({ action: "ask", always: null });
  });
});

describe("what always never covers", () => {
  /** The line asks, offers no always, and is not let through by a key for its own program. */
  const neverAlways = (line: string, allowed: string[]) => {
    const decision = exec(line, allowed);
    return { line, action: decision.action, always: decision.always };
  };
  const ASKS = (line: string) => ({ line, action: "ask" as const, always: null });

  test("builtins that evaluate a name as arithmetic, or run a command they are given, are never allowed", () => {
    for (const line of [
      "printf -v 'a[$(touch /tmp/x)]' x",
      "printf -va x",
      "test -v 'a[$(touch /tmp/x)]'",
      "[ -v 'a[$(touch /tmp/x)]' ]",
      "[ -R 'a[$(touch /tmp/x)]' ]",
      "read 'a[$(touch /tmp/x)]'",
      "let 'a[$(touch /tmp/x)]=1'",
      "mapfile -C 'touch /tmp/x;:' -c 1 a <<<q",
      "readarray -C 'touch /tmp/x;:' -c 1 a <<<q",
      "compgen -C 'touch /tmp/x' x",
      "complete -C 'touch /tmp/x' x",
      "declare 'a[$(touch /tmp/x)]=1'",
      "typeset 'a[$(touch /tmp/x)]=1'",
      "local 'a[$(touch /tmp/x)]=1'",
      "unset 'a[$(touch /tmp/x)]'",
      "wait -p 'a[$(touch /tmp/x)]'",
      "getopts a 'b[$(touch /tmp/x)]'",
      "[[ -v 'a[$(touch /tmp/x)]' ]]",
    ]) {
      expect(neverAlways(line, [`exec:${line.split(" ")[0]}`])).toEqual(ASKS(line));
    }
    expect(exec("printf '%s\\n' hi").always?.keys).toEqual(["exec:printf"]);
    expect(exec("test -f x").always?.keys).toEqual(["exec:test"]);
  });

  test("interpreters and runners of other programs are never allowed; project scripts are, and the label says so", () => {
    for (const line of [
      "sed -i s/a/b/ f",
      "sed 'w /tmp/x' f",
      "awk 'BEGIN { system(\"id\") }'",
      "gawk 1 f",
      "flock f touch x",
      "busybox sh",
      "unshare -r ls",
      "ssh host ls",
      "npx bash -c ls",
      "npx node -e 1",
      "npm exec node",
      "uv run python -c 1",
      "poetry run python x.py",
      "bun x sh",
    ]) {
      expect(neverAlways(line, [`exec:${line.split(" ")[0]}`, `exec:${line.split(" ").slice(0, 2).join(" ")}`, `exec:${line.split(" ").slice(0, 3).join(" ")}`])).toEqual(ASKS(line));
    }
    expect(exec("make test").always?.label).toBe("make test commands (they run the project's own scripts, as those then are), for this session");
  });

  test("options that run a program or write a file are refused for a session, abbreviated or not", () => {
    for (const [line, key] of [
      ["fd -x rm", "fd"],
      ["fd . -X rm", "fd"],
      ["fd -Hx rm", "fd"],
      ["rg --pre ./x KEY", "rg"],
      ["git diff --output=/tmp/x", "git diff"],
      ["git diff --out=/tmp/x", "git diff"],
      ["git log --output /tmp/x", "git log"],
      ["git rebase -x 'rm -rf ~' main", "git rebase"],
      ["git submodule foreach rm -rf .", "git submodule"],
      ["git config core.pager 'rm -rf ~'", "git config"],
      ["git clean -fd", "git clean"],
      ["sort -o /tmp/x f", "sort"],
      ["make test -f /tmp/evil.mk", "make test"],
      ["make test SHELL=/tmp/evil", "make test"],
      ["npm test --prefix ../other", "npm test"],
      ["npm test --node-options=--require=/tmp/x.js", "npm test"],
      ["bun test --preload /tmp/x.ts", "bun test"],
      ["curl -fsSLo /tmp/x https://example.com", "curl"],
    ] as const) {
      expect(neverAlways(line, [`exec:${key}`])).toEqual(ASKS(line));
    }
    expect(exec("git log --oneline -5", ["exec:git log"]).action).toBe("allow");
    expect(exec("npm test -- --prefix x", ["exec:npm test"]).action).toBe("allow");
  });

  test("a writer's paths are judged like a redirection's targets", () => {
    for (const line of [
      "ls | tee /tmp/out.txt",
      "tee -a ../x",
      "tee .env",
      "cp a /tmp/b",
      "cp -t /tmp a",
      "cp --target-directory=/tmp a",
      "mv a ../b",
      "touch /tmp/x",
      "touch .git/hooks/pre-commit",
      "mkdir -p /tmp/x",
      "ln -s x /tmp/y",
      "install a /tmp/b",
      "dd if=a of=/tmp/b",
      "truncate -s 0 ../x",
      "chmod +x /tmp/x",
      "touch $OUT",
    ]) {
      const program = line.includes("|") ? "tee" : (line.split(" ")[0] ?? "");
      expect(neverAlways(line, ["exec:ls", `exec:${program}`])).toEqual(ASKS(line));
    }
    for (const line of ["ls | tee out.txt", "cp a b", "touch x", "mkdir -p a/b", "dd if=a of=b", "mv -v a b", "tee /dev/null"]) {
      expect({ line, offered: exec(line).always !== null }).toEqual({ line, offered: true });
    }
  });

  test("never-allowed names are matched whatever their case (a case-insensitive filesystem runs RM as rm)", () => {
    for (const line of ["RM -rf x", "/bin/RM -rf x", "SUDO ls", "BASH -c ls", "Env ls", "NODE -e 1", "XARGS rm", "Sed -i s/a/b/ f"]) {
      expect(neverAlways(line, [`exec:${line.split(" ")[0]}`])).toEqual(ASKS(line));
    }
  });
});
