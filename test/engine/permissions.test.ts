import { describe, expect, test } from "bun:test";
import type { Mode } from "../../src/config/schema.ts";
import { decide, lowerMode } from "../../src/engine/permissions.ts";
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

  test("modes are lowered to the limit", () => {
    expect(lowerMode("auto", "edit")).toBe("edit");
    expect(lowerMode("manual", "edit")).toBe("manual");
    expect(lowerMode("edit", "plan")).toBe("plan");
  });
});

/** decide() for a command line in edit mode, run from the root (or cwd). */
const exec = (command: string, allowed: string[] = [], cwd = root) =>
  decide({ mode: "edit", permission: "exec", toolName: "bash", paths: [], command, cwd, root, protectedPaths: rules, allowed: new Set(allowed) });

describe('what "always" allows for a command line', () => {
  test("a compound line is offered with every command it runs named, and then runs unasked", () => {
    const first = exec("cd pkg && npm test");
    expect(first.action).toBe("ask");
    expect(first.always).toEqual({ keys: ["exec:npm test"], label: "npm test commands, for this session" });
    expect(exec("cd pkg && npm test", first.always?.keys).action).toBe("allow");
    const two = exec("git status && npm test | tail -5");
    expect(two.always?.label).toBe("git status, npm test and tail commands, for this session");
    expect(exec("git status; npm test", ["exec:git status", "exec:npm test"]).action).toBe("allow");
  });

  test("only what is not allowed yet is offered", () => {
    expect(exec("git status && npm test", ["exec:git status"]).always).toEqual({ keys: ["exec:npm test"], label: "npm test commands, for this session" });
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
    expect(exec("node build.js").always?.keys).toEqual(["exec:node build.js"]);
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
