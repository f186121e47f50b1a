import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../../build.ts";
import { VERSION } from "../../src/version.ts";
import { type Sandbox, sandbox, TEST_BIN } from "../support/run.ts";

// The binary is started inside people's projects: what a project holds for Bun (its .env, its
// bunfig.toml) is the project's, not lembas's. Bun's compiled programs load both by default.
let dir = "";
let bin = "";
let box: Sandbox;
let project = "";
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lembas-project-files-"));
  bin = TEST_BIN ?? (await build(join(dir, "lembas")));
  box = sandbox();
  project = join(box.dir, "project");
  mkdirSync(project);
}, 180_000);
afterAll(() => {
  box.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function runBinary(args: string[], env: Record<string, string> = box.env) {
  const proc = Bun.spawn([bin, ...args], { cwd: project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

test("the compiled binary runs no preload of a bunfig.toml in the directory it is started in", async () => {
  const marker = join(box.dir, "preloaded");
  writeFileSync(join(project, "preload.js"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
  writeFileSync(join(project, "bunfig.toml"), 'preload = ["./preload.js"]\n');
  try {
    const result = await runBinary(["--version"]);
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(new RegExp(`^lembas ${VERSION.replaceAll(".", "\\.")} \\(\\S+\\)\\n$`)), stderr: "" });
    expect(existsSync(marker)).toBe(false);
  } finally {
    rmSync(join(project, "bunfig.toml"));
  }
});

test("the compiled binary takes no variable from a .env in the directory it is started in", async () => {
  writeFileSync(join(project, ".env"), `LEMBAS_CONFIG_DIR=${join(box.dir, "from-dotenv")}\n`);
  try {
    // Without LEMBAS_CONFIG_DIR of its own, config.yaml is under XDG_CONFIG_HOME: not where the project's .env says.
    const { LEMBAS_CONFIG_DIR: _set, ...env } = box.env;
    const result = await runBinary(["config", "path"], { ...env, XDG_CONFIG_HOME: join(box.dir, "xdg") });
    expect(result).toEqual({ code: 0, stdout: `${join(box.dir, "xdg", "lembas", "config.yaml")}\n`, stderr: "" });
  } finally {
    rmSync(join(project, ".env"));
  }
});
