import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { resolvePaths } from "../../src/config/paths.ts";
import { discoverFiles } from "../../src/library/discover.ts";
import { embeddingTarget } from "../../src/library/embedding-target.ts";
import { addFiles, QUIET } from "../../src/library/indexer.ts";
import { protectedPaths } from "../../src/project/protected.ts";
import { openDb } from "../../src/store/db.ts";
import { isStep, step } from "../support/engine.ts";
import { contentText } from "../support/model.ts";
import { type LibraryBox, libraryBox } from "./support.ts";

let box: LibraryBox;
beforeEach(async () => {
  box = await libraryBox();
});
afterEach(() => box.close());

/** A directory of notes with secrets among them: an env file, private keys, an .ssh directory, a file config.yaml protects. */
function notes(): string {
  const dir = join(realpathSync(box.project), "notes");
  mkdirSync(join(dir, ".ssh"), { recursive: true });
  mkdirSync(join(dir, "keys"));
  writeFileSync(join(dir, "guide.md"), "# Guide\n\nThe deploy token rotates every hour.\n");
  writeFileSync(join(dir, ".env"), "DEPLOY_TOKEN=sk-live-envfile\n");
  writeFileSync(join(dir, "keys", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY----- deploy token keyfile\n");
  writeFileSync(join(dir, "keys", "server.pem"), "-----BEGIN PRIVATE KEY----- deploy token pemfile\n");
  writeFileSync(join(dir, ".ssh", "config"), "Host deploy token sshconfig\n");
  writeFileSync(join(dir, "vault.txt"), "deploy token vaultfile\n");
  return dir;
}

const SECRETS = ["sk-live-envfile", "keyfile", "pemfile", "sshconfig"];

describe("the library takes no protected file", () => {
  for (const lister of [{ rg: Bun.which("rg") }, { rg: null }]) {
    test(`a directory's env files, private keys and .ssh are left out (${lister.rg ? "ripgrep" : "walker"}), and so are config.yaml's protected paths`, async () => {
      const dir = notes();
      const found = await discoverFiles([dir], box.project, lister, protectedPaths(["vault.txt"], []));
      expect(found).toEqual({ files: [join(dir, "guide.md")], failures: [] });
    });
  }

  test("a protected file named on its own is refused with a sentence, as is a directory inside .ssh", async () => {
    const dir = notes();
    const found = await discoverFiles([join(dir, ".env"), "notes/keys/id_ed25519", join(dir, ".ssh")], box.project);
    expect(found.files).toEqual([]);
    expect(found.failures).toEqual([
      `${join(dir, ".env")} is a protected path (a secret, or git's own files): the library does not take it`,
      "notes/keys/id_ed25519 is a protected path (a secret, or git's own files): the library does not take it",
      `${join(dir, ".ssh")} is a protected path (a secret, or git's own files): the library does not take it`,
    ]);
  });

  test("lembas library add, then the model's library search: no secret reaches the model", async () => {
    notes();
    const added = await box.lembas(["library", "add", "notes"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe("added 2 files (2 chunks)\n");
    box.model.push(step({ toolCalls: [{ name: "library", arguments: { query: "deploy token private key", limit: 10 } }] }), step({ text: "ok" }));
    const result = await box.lembas(["run", "--yes", "where is the deploy token?"]);
    expect(result.code).toBe(0);
    const sent = JSON.stringify(box.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
    const tool = box.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages?.find((m) => m.role === "tool");
    expect(contentText(tool?.content)).toContain("notes/guide.md");
    for (const secret of SECRETS) expect({ secret, sent: sent.includes(secret) }).toEqual({ secret, sent: false });
  });

  test("a library added before protected files were left out gives them up at its next search", async () => {
    const dir = notes();
    // As lembas library add took them then: the files indexed as they were listed, secrets and all.
    const paths = resolvePaths(box.env);
    const db = openDb(paths.dbFile);
    const target = embeddingTarget(loadConfig(paths.configFile), [], box.env);
    if (!target.ok) throw new Error(target.error);
    const files = [join(dir, "guide.md"), join(dir, ".env"), join(dir, "keys", "id_ed25519"), join(dir, "keys", "server.pem"), join(dir, ".ssh", "config")];
    await addFiles({ db, target: target.value, reporter: QUIET }, files, new Set());
    db.close();
    box.model.push(step({ toolCalls: [{ name: "library", arguments: { query: "deploy token private key", limit: 10 } }] }), step({ text: "ok" }));
    const result = await box.lembas(["run", "--yes", "where is the deploy token?"]);
    expect(result.code).toBe(0);
    const sent = JSON.stringify(box.model.requests.filter((r) => isStep(r.body)).at(-1)?.body.messages);
    expect(sent).toContain("notes/guide.md");
    for (const secret of SECRETS) expect({ secret, sent: sent.includes(secret) }).toEqual({ secret, sent: false });
    expect((await box.lembas(["library", "list"])).stdout).not.toContain(".env");
  });
});
