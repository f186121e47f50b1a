import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isProtected, judgeFound, protectedPaths, protection, protectionJudge } from "../../src/project/protected.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
/** A fresh temp directory, by its real path. */
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "lembas-protected-")));
  made.push(dir);
  return dir;
}

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

  test("the built-in names match in any case (a case-insensitive filesystem opens .env for .ENV); config.yaml's globs as written", () => {
    for (const rel of [".ENV", ".Env.Local", "ID_RSA", "keys/Id_Ed25519.pub", "Server.PEM", "TLS.KEY", ".SSH/config", "home/.Ssh"]) {
      expect([rel, of(rel)]).toEqual([rel, "secret"]);
    }
    for (const rel of [".GIT", ".Git/config"]) expect([rel, of(rel)]).toEqual([rel, "protected"]);
    for (const rel of ["Secrets/a.txt", "GENERATED"]) expect([rel, of(rel)]).toEqual([rel, null]);
  });

  test("a glob ending /** protects the directory itself, so that what is in it is protected when the directory is named", () => {
    expect(of("secrets")).toBe("protected");
    expect(of("src/secrets")).toBeNull();
    const judge = protectionJudge(root, rules);
    expect(judge(`${root}/secrets`)).toBe("protected");
  });

  test("the config and state dirs are the same dirs with a trailing slash, relative, or reached through a symlink", () => {
    const real = temp();
    mkdirSync(join(real, "state"));
    const link = join(temp(), "link");
    symlinkSync(real, link);
    const relativeDir = "lembas-relative-state";
    const dirs = protectedPaths([], [`${root}/.lembas/`, `${link}/state`, relativeDir, `${real}/config/`]);
    const cases: [string, "secret" | null][] = [
      [`${root}/.lembas`, "secret"],
      [`${root}/.lembas/logs/service.log`, "secret"],
      [`${root}/.lembas-other/x`, null],
      [`${real}/state/lembas.db`, "secret"],
      [`${link}/state/lembas.db`, "secret"],
      [`${link}/config/config.yaml`, null],
      [`${real}/config/config.yaml`, "secret"],
      [resolve(relativeDir, "x.log"), "secret"],
      [`${root}/src/a.ts`, null],
    ];
    const judge = protectionJudge(root, dirs);
    for (const [path, expected] of cases) {
      expect([path, protection(path, root, dirs)]).toEqual([path, expected]);
      expect([path, judge(path)]).toEqual([path, expected]);
    }
  });

  test("the judge agrees with protection over a table of paths, odd forms included", () => {
    const inside = protectedPaths(["infra/**", "build"], [`${root}/.lembas/`, `${root}/state`]);
    const judge = protectionJudge(root, inside);
    const paths = [
      ".lembas", ".lembas/", ".lembas/logs/service.log", ".lembas//logs/x", "state/lembas.db", "state2/x", "infra", "infra/", "infra/prod.tf",
      "view/prod.tf", "build", "src/build/out.js", ".ENV", "src/Server.PEM", ".GIT/HEAD", "src//a.ts", "src/a.ts/", "a/../.env", "./README.md",
      "/home/p/.ssh/id_rsa", "/etc/hosts",
    ].map((rel) => (rel.startsWith("/") ? rel : `${root}/${rel}`));
    for (const path of [...paths, ...paths]) expect([path, judge(path)]).toEqual([path, protection(path, root, inside)]);
    expect(judge(`${root}/.lembas/logs/service.log`)).toBe("secret");
    expect(judge(`${root}/infra`)).toBe("protected");
  });

  test("what is found under a symlinked base is judged by its real path too: a link into a protected dir, to .ssh, to the root", () => {
    const project = temp();
    for (const dir of ["infra", ".ssh", ".lembas/logs", "src"]) mkdirSync(join(project, dir), { recursive: true });
    symlinkSync("infra", join(project, "view"));
    symlinkSync(".ssh", join(project, "keys"));
    symlinkSync(".", join(project, "mirror"));
    const found = protectedPaths(["infra/**"], [join(project, ".lembas")]);
    const judge = protectionJudge(project, found);
    expect(judge(join(project, "view/prod.tf"))).toBeNull();
    expect(judgeFound(join(project, "view"), project, judge)(join(project, "view/prod.tf"))).toBe("protected");
    expect(judgeFound(join(project, "view"), project, judge)(join(project, "view"))).toBe("protected");
    expect(judgeFound(join(project, "keys"), project, judge)(join(project, "keys/config"))).toBe("secret");
    expect(judgeFound(join(project, "mirror"), project, judge)(join(project, "mirror/.lembas/logs/service.log"))).toBe("secret");
    expect(judgeFound(join(project, "mirror"), project, judge)(join(project, "mirror/src/a.ts"))).toBeNull();
  });

  test("a root reached through a symlink: paths written under it are judged by the real form too", () => {
    const project = temp();
    mkdirSync(join(project, "infra"));
    const link = join(temp(), "link");
    symlinkSync(project, link);
    const found = protectedPaths(["infra/**"], [join(project, ".lembas")]);
    const judge = judgeFound(link, link, protectionJudge(link, found));
    expect(judge(join(link, ".lembas/logs/service.log"))).toBe("secret");
    expect(judge(join(link, "infra/prod.tf"))).toBe("protected");
    expect(judge(join(link, "src/a.ts"))).toBeNull();
  });
});

test("where the file system ignores case, config.yaml's globs do too: *.secret covers A.SECRET, infra/** covers INFRA/x", () => {
  const root = "/work/p";
  const folding = protectedPaths(["*.secret", "infra/**"], [], true);
  expect(protection(`${root}/A.SECRET`, root, folding)).toBe("protected");
  expect(protection(`${root}/INFRA/prod.tf`, root, folding)).toBe("protected");
  expect(protectionJudge(root, folding)(`${root}/INFRA/prod.tf`)).toBe("protected");
  const exact = protectedPaths(["*.secret", "infra/**"], [], false);
  expect(protection(`${root}/A.SECRET`, root, exact)).toBeNull();
  expect(protection(`${root}/a.secret`, root, exact)).toBe("protected");
});

test("the judge of a listing looks at a glob's fixed start and end first, and still protects what the glob matches", () => {
  const globs = protectedPaths(["**/keys.json", "conf/**/db.yaml", "*.{pem2,crt}", "id_[a-z]*", "tmp?.log"], []);
  const judge = protectionJudge(root, globs);
  const judged = (rel: string) => [rel, judge(`${root}/${rel}`), protection(`${root}/${rel}`, root, globs)];
  for (const rel of ["keys.json", "a/b/keys.json", "conf/db.yaml", "conf/x/y/db.yaml", "c.crt", "d/c.pem2", "id_x", "tmp1.log"]) {
    expect(judged(rel)).toEqual([rel, "protected", "protected"]);
  }
  for (const rel of ["keys.json5", "akeys.json/x.ts", "conf.yaml", "db.yaml", "c.crt.txt", "id_1", "tmp12.log"]) {
    expect(judged(rel)).toEqual([rel, null, null]);
  }
});
