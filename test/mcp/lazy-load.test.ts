import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVER } from "./servers.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "lembas-mcp-load-"));
const preload = join(dir, "loaded.ts");
const list = join(dir, "loaded.txt");
// At exit, every module the process loaded, one a line in a file.
writeFileSync(
  preload,
  `import { writeFileSync } from "node:fs";
  process.on("exit", () => {
    // Bun lists every module it loaded, ES ones too, in require.cache.
    writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n"));
  });\n`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loaded(args: string[]): Promise<string[]> {
  rmSync(list, { force: true });
  const child = Bun.spawn([process.execPath, "--preload", preload, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  expect(await child.exited).toBe(0);
  const modules = readFileSync(list, "utf8").split("\n").filter(Boolean);
  expect(modules.length).toBeGreaterThan(0);
  return modules;
}

const sdk = (modules: string[]) => modules.filter((m) => m.includes("@modelcontextprotocol"));
const hubScript = (specs: string) => `
  import { McpHub } from ${JSON.stringify(join(ROOT, "src/mcp/hub.ts"))};
  const hub = new McpHub();
  await hub.start(${specs}, new AbortController().signal);
  await hub.stop();
`;

test("lembas --version loads no part of the MCP SDK", async () => {
  expect(sdk(await loaded(["src/index.ts", "--version"]))).toEqual([]);
});

test("a session's hub without servers loads no part of the MCP SDK", async () => {
  const modules = await loaded(["-e", hubScript("[]")]);
  expect(modules.some((m) => m.endsWith("src/mcp/hub.ts"))).toBe(true);
  expect(sdk(modules)).toEqual([]);
});

test("a hub with a server loads it (so the check above can see it)", async () => {
  const spec = { name: "t", source: "config", transport: { type: "stdio", command: process.execPath, args: [SERVER], env: {} } };
  expect(sdk(await loaded(["-e", hubScript(JSON.stringify([spec]))])).length).toBeGreaterThan(0);
});
