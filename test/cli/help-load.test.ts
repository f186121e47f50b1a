/**
 * `lembas --help` lists every subcommand with its one-line description: it prints them without
 * loading the subcommands' modules (it took 5× a compiled hello-world when it did), and each line
 * is the one the subcommand's own page gives.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/** The Commands: rows of a help page: name → description. */
function commandRows(page: string): Map<string, string> {
  const block = page.split("\n\nCommands:\n")[1]?.split("\n\n")[0] ?? "";
  return new Map(block.split("\n").map((row) => /^ {2}(\S+)\s+(.*)$/.exec(row)).flatMap((m) => (m?.[1] && m[2] ? [[m[1], m[2]] as const] : [])));
}

test("lembas --help loads none of its subcommands' modules, nor the terminal's, nor the store", async () => {
  const list = join(box.dir, "loaded.txt");
  const preload = join(box.dir, "loaded.ts");
  // At exit, every module the process loaded, one a line (Bun lists ES modules in require.cache too).
  writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n")));\n`);
  const result = await runLembas(box, ["--help"], { env: { BUN_OPTIONS: `--preload ${preload}` }, source: true });
  expect(result.code).toBe(0);
  const loaded = readFileSync(list, "utf8").split("\n").filter(Boolean);
  const ours = (path: string) => loaded.some((m) => m.endsWith(`/src/${path}`));
  // The probe sees the help's own modules.
  for (const path of ["cli/main.ts", "cli/usage.ts"]) expect([path, ours(path)]).toEqual([path, true]);
  const subcommands = ["config", "trust", "untrust", "run", "serve", "login", "logout", "status", "account-usage", "sessions", "models", "service", "doctor", "mcp", "hooks", "permissions", "library", "index-command"];
  for (const path of [...subcommands.map((name) => `cli/${name}.ts`), "cli/tui.ts", "store/db.ts", "config/load.ts"]) expect([path, ours(path)]).toEqual([path, false]);
  expect(loaded.some((m) => m.includes("/node_modules/zod/"))).toBe(false);
});

test("lembas --help lists each subcommand with the description its own --help page gives, and the terminal's usage", async () => {
  const root = await runLembas(box, ["--help"]);
  expect(root.code).toBe(0);
  const rows = commandRows(root.stdout);
  expect([...rows.keys()]).toEqual(["config", "trust", "untrust", "run", "serve", "login", "logout", "status", "usage", "sessions", "models", "service", "doctor", "mcp", "hooks", "permissions", "library", "index"]);
  for (const [name, description] of rows) {
    const page = await runLembas(box, [name, "--help"]);
    expect(page.code).toBe(0);
    // Usage: …, a blank line, the description.
    expect([name, page.stdout.split("\n")[2]]).toEqual([name, description]);
  }
  expect(root.stdout).toContain("\n\nlembas [PROMPT] [-c | -r [ID] [--fork]]");
  expect(root.stdout).toContain("Opens the interactive session in this directory");
}, 60_000);
