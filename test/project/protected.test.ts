import { describe, expect, test } from "bun:test";
import { isProtected, protectedPaths, protection, protectionJudge } from "../../src/project/protected.ts";

const root = "/home/p/project";
const rules = protectedPaths(["secrets/**", "generated"], ["/home/p/.config/lembas", "/home/p/.local/state/lembas"]);
const of = (rel: string) => protection(rel.startsWith("/") ? rel : `${root}/${rel}`, root, rules);

describe("protected paths", () => {
  test("every name starting .env is a secret, in any directory, and so is what a .env* directory holds", () => {
    for (const rel of [".env", ".env.local", ".envrc", ".env-local", ".env_prod", ".envrc2", ".envoy.yaml", "api/.envrc", "deep/er/.env_prod", ".env.d/app.conf"]) {
      expect([rel, of(rel)]).toEqual([rel, "secret"]);
    }
  });

  test("a name with env but not starting .env is not protected", () => {
    for (const rel of ["env.ts", "src/environment.ts", "dotenv.md", "a.env"]) expect([rel, of(rel)]).toEqual([rel, null]);
  });

  test("private keys, .ssh itself and what it holds, and the config and state dirs are secrets", () => {
    for (const rel of ["id_rsa", "keys/id_ed25519.pub", "certs/server.pem", "tls.key", "store.p12", ".ssh", ".ssh/config", "home/.ssh/known_hosts", "/home/p/.config/lembas/config.yaml", "/home/p/.local/state/lembas"]) {
      expect([rel, of(rel)]).toEqual([rel, "secret"]);
    }
  });

  test(".git itself is protected, as is everything in it, at any depth", () => {
    for (const rel of [".git", ".git/config", "vendor/lib/.git", "vendor/lib/.git/HEAD"]) expect([rel, of(rel)]).toEqual([rel, "protected"]);
  });

  test("config.yaml's globs protect (not as secrets): a path glob from the root, a name glob at any depth and what it holds", () => {
    for (const rel of ["secrets/a.txt", "secrets/deep/b.txt", "generated", "src/generated/out.ts"]) expect([rel, of(rel)]).toEqual([rel, "protected"]);
    for (const rel of ["src/secrets/a.txt", "src/a.ts", "README.md"]) expect([rel, of(rel)]).toEqual([rel, null]);
  });

  test("the project root is not judged by the names above it; isProtected is any protection", () => {
    const inEnvDir = "/home/p/.envs/project";
    expect(protection(`${inEnvDir}/src/a.ts`, inEnvDir, rules)).toBeNull();
    expect(protection(inEnvDir, inEnvDir, rules)).toBeNull();
    expect(isProtected(`${root}/.git`, root, rules)).toBe(true);
    expect(isProtected(`${root}/src/a.ts`, root, rules)).toBe(false);
  });

  test("a judge for many paths, remembering directories, says what protection says", () => {
    const judge = protectionJudge(root, rules);
    const paths = [
      ".env", ".envrc", ".env.d/app.conf", "src/.env.d/x/y.ts", "src/a.ts", "src/generated/out.ts", "secrets/deep/b.txt", "src/secrets/a.txt",
      ".git", ".git/objects/ab", ".ssh/config", "id_rsa", "docs/readme.md", "src/../.env", "src/./a.ts",
      "/home/p/.config/lembas/config.yaml", "/home/p/other/.env", "/etc/hosts",
    ].map((rel) => (rel.startsWith("/") ? rel : `${root}/${rel}`));
    for (const path of [...paths, ...paths]) expect([path, judge(path)]).toEqual([path, protection(path, root, rules)]);
  });
});
