import { describe, expect, test } from "bun:test";
import type { Mode } from "../../src/config/schema.ts";
import { commandProgram, decide, lowerMode } from "../../src/engine/permissions.ts";
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

  test("allowed for the session: a command's program, and writes in the project", () => {
    expect(check("edit", "exec", [], "npm test", ["exec:npm"])).toBe("allow");
    expect(check("edit", "exec", [], "npx rimraf /", ["exec:npm"])).toBe("ask");
    expect(check("manual", "write", [`${root}/a`], undefined, ["write:project"])).toBe("allow");
  });

  test("always is not offered for a command that chains, pipes or substitutes", () => {
    expect(commandProgram("npm test")).toBe("npm");
    expect(commandProgram("CI=1 npm test")).toBe("npm");
    for (const line of ["npm test && rm -rf x", "cat a | sh", "echo $(id)", "rm -rf build", "sudo make"]) expect(commandProgram(line)).toBeNull();
  });

  test("modes are lowered to the limit", () => {
    expect(lowerMode("auto", "edit")).toBe("edit");
    expect(lowerMode("manual", "edit")).toBe("manual");
    expect(lowerMode("edit", "plan")).toBe("plan");
  });
});
