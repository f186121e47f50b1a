import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TARGETS, hostTarget, runtimeFor, sha256File, sumsFile } from "../../build.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lembas-build-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("SHA256SUMS is in sha256sum's format: sha256sum -c accepts it", async () => {
  writeFileSync(join(dir, "lembas-linux-x64"), "one");
  writeFileSync(join(dir, "lembas-darwin-arm64"), "two");
  const sums = sumsFile([
    { name: "lembas-linux-x64", sha256: await sha256File(join(dir, "lembas-linux-x64")) },
    { name: "lembas-darwin-arm64", sha256: await sha256File(join(dir, "lembas-darwin-arm64")) },
  ]);
  expect(sums).toMatch(/^[0-9a-f]{64} {2}lembas-linux-x64\n[0-9a-f]{64} {2}lembas-darwin-arm64\n$/);
  writeFileSync(join(dir, "SHA256SUMS"), sums);
  const check = Bun.which("sha256sum") ? ["sha256sum", "-c", "SHA256SUMS"] : ["shasum", "-a", "256", "-c", "SHA256SUMS"];
  expect(Bun.spawnSync(check, { cwd: dir, stdout: "pipe" }).exitCode).toBe(0);
});

test("the platforms are the ones install.sh asks for, and this machine is one of them", () => {
  expect(TARGETS.map((t) => t.name)).toEqual(["linux-x64", "linux-arm64", "linux-x64-musl", "linux-arm64-musl", "darwin-x64", "darwin-arm64"]);
  for (const target of TARGETS) expect(String(target.compile)).toBe(`bun-${target.name}`);
  expect(TARGETS.map((t) => t.name)).toContain(hostTarget());
});

test("a target's runtime is this Bun for this machine, else taken from the cache without asking npm", async () => {
  const host = TARGETS.find((t) => t.name === hostTarget());
  const other = TARGETS.find((t) => t.name !== hostTarget());
  if (!host || !other) throw new Error("no targets");
  expect(await runtimeFor(host, dir)).toBe(process.execPath);
  const cached = join(dir, `${other.npm.replace("@oven/", "")}-${Bun.version}`, "bin", "bun");
  mkdirSync(join(cached, ".."), { recursive: true });
  writeFileSync(cached, "");
  expect(await runtimeFor(other, dir)).toBe(cached);
});
