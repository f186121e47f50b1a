import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const ASK = `import { tool } from "./test/support/tools.ts"; console.log(String(tool("lembas-no-such-tool", "nothing", "this check")));`;

function ask(env: Record<string, string>) {
  const done = Bun.spawnSync([process.execPath, "-e", ASK], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stderr: "pipe" });
  return { code: done.exitCode, out: done.stdout.toString(), err: done.stderr.toString() };
}

test("a missing tool skips its tests with a warning on a developer's machine", () => {
  const result = ask({});
  expect(result.code).toBe(0);
  expect(result.out).toBe("null\n");
  expect(result.err).toContain("SKIPPED: this check needs lembas-no-such-tool");
});

test("in CI a missing tool fails loudly, saying CI must install it", () => {
  const result = ask({ CI: "true" });
  expect(result.code).not.toBe(0);
  expect(result.err).toContain("this check needs lembas-no-such-tool (the nothing package), which is missing here; CI must install it");
});

test("no test file looks for a tool or skips for one but through test/support/tools.ts", () => {
  const offenders: string[] = [];
  for (const file of new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: ROOT })) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const lookup = /(skipIf|\.if)\(\s*!?\s*Bun\.which|^const \w+ = Bun\.which\([^)]*\);|findSandbox\(\)\.kind|^const \w+ = findSandbox\(\);/m;
    if (lookup.test(text)) offenders.push(file);
  }
  expect(offenders).toEqual([]);
});
