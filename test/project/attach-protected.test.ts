import { afterAll, describe, expect, test } from "bun:test";
import { expandMentions } from "../../src/project/attach.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { cleanup, tempDir, writeFiles } from "./tree.ts";

afterAll(cleanup);

function project(): string {
  return writeFiles(tempDir(), {
    ".env": "SECRET=env\n",
    ".envrc": "SECRET=envrc\n",
    ".env-local": "SECRET=local\n",
    ".env_prod": "SECRET=prod\n",
    ".git/config": "SECRET=git\n",
    "id_rsa": "SECRET=key\n",
    ".ssh/config": "SECRET=ssh\n",
    "src/main.ts": "export {};\n",
    "README.md": "read me\n",
  });
}

const expand = (root: string, text: string) => expandMentions(text, { cwd: root, root, roots: null, protectedPaths: protectedPaths([], []) });

describe("@mentions of protected paths", () => {
  test("@.env, @.envrc, @.env-local, @.env_prod, @.git, @.ssh/config and @id_rsa stay plain text and are never read", () => {
    const root = project();
    const typed = "see @.env @.envrc @.env-local @.env_prod @.git/ @.ssh/config @id_rsa";
    const attached = expand(root, typed);
    expect(attached.text).toBe(typed);
    expect(attached.read).toEqual([]);
    expect(attached.skipped.map((s) => s.why)).toEqual(Array(7).fill("a protected path"));
  });

  test("an @dir/ listing leaves secrets out, name and all", () => {
    const attached = expand(project(), "look at @./");
    expect(attached.text).toContain('<directory path="./">\nsrc/\nREADME.md\n</directory>');
    expect(attached.text).not.toContain("env");
    expect(attached.text).not.toContain("id_rsa");
  });

  test("@.ENV, @ID_RSA and @Server.PEM are secrets too: on a case-insensitive filesystem they open .env and the keys", () => {
    const root = writeFiles(project(), { ".ENV": "SECRET=upper\n", "ID_RSA": "SECRET=KEY\n", "Server.PEM": "SECRET=pem\n" });
    const typed = "see @.ENV @ID_RSA @Server.PEM";
    const attached = expand(root, typed);
    expect(attached.text).toBe(typed);
    expect(attached.read).toEqual([]);
    expect(attached.skipped.map((s) => s.why)).toEqual(Array(3).fill("a protected path"));
  });

  test("@ through a symlinked directory into one config.yaml protects with a /** glob stays plain text", () => {
    const root = writeFiles(project(), { "infra/prod.tf": "SECRET=infra\n", "view": { link: "infra" } });
    const typed = "see @view/ and @view/prod.tf";
    const attached = expandMentions(typed, { cwd: root, root, roots: null, protectedPaths: protectedPaths(["infra/**"], []) });
    expect(attached.text).toBe(typed);
    expect(attached.skipped.map((s) => s.why)).toEqual(["a protected path", "a protected path"]);
  });
});
