import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../src/store/db.ts";
import { trustedRootOf } from "../../src/store/trust.ts";
import { type Sandbox, runLembas, sandbox } from "../support/run.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

test("trust, list and untrust round trip; a trusted directory covers what is below it", async () => {
  const project = join(box.dir, "work", "project");
  mkdirSync(join(project, "src"), { recursive: true });
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe("");
  const trusted = await runLembas(box, ["trust"], { cwd: project });
  expect(trusted).toMatchObject({ code: 0, stdout: `trusted ${project}\n` });
  expect((await runLembas(box, ["trust", project])).code).toBe(0);
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe(`${project}\n`);

  const db = openDb(join(box.stateDir, "lembas.db"));
  expect(trustedRootOf(db, join(project, "src"))).toBe(project);
  expect(trustedRootOf(db, `${project}-other`)).toBeNull();
  expect(trustedRootOf(db, join(box.dir, "work"))).toBeNull();
  db.close();

  expect((await runLembas(box, ["untrust", project])).code).toBe(0);
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe("");
});

test("trusting a path that is not a directory is one line and exit 2", async () => {
  const result = await runLembas(box, ["trust", join(box.dir, "missing")]);
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe(`lembas: ${join(box.dir, "missing")} is not a directory`);
});

test("untrusting a directory that was not trusted says so", async () => {
  const result = await runLembas(box, ["untrust", box.dir]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("was not trusted");
});

test("--version prints the version and --help lists the commands", async () => {
  const version = await runLembas(box, ["--version"]);
  expect(version.stdout).toMatch(/^lembas \d+\.\d+\.\d+ \(.+\)\n$/);
  const help = await runLembas(box, ["--help"]);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("trust");
  expect(help.stdout).toContain("config");
});

test("a mistyped subcommand is one line and exit 2, not a prompt", async () => {
  const result = await runLembas(box, ["trsut"]);
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toContain("did you mean trust?");
});

test("trusting through a symlink stores the real directory; list shows it once and untrust takes either spelling", async () => {
  const real = join(box.dir, "work", "real");
  const alias = join(box.dir, "alias");
  mkdirSync(join(real, "src"), { recursive: true });
  symlinkSync(real, alias);
  expect(await runLembas(box, ["trust", alias])).toMatchObject({ code: 0, stdout: `trusted ${real} (${alias} leads there)\n` });
  expect((await runLembas(box, ["trust", real])).code).toBe(0);
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe(`${real}\n`);
  const db = openDb(join(box.stateDir, "lembas.db"));
  expect(trustedRootOf(db, join(real, "src"))).toBe(real);
  expect(trustedRootOf(db, join(alias, "src"))).toBe(real);
  db.close();
  expect((await runLembas(box, ["untrust", alias])).code).toBe(0);
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe("");
  await runLembas(box, ["trust", alias]);
  expect((await runLembas(box, ["untrust", real])).code).toBe(0);
  expect((await runLembas(box, ["trust", "--list"])).stdout).toBe("");
});
