import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeParams, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { ENTRY } from "../support/run.ts";

const dir = mkdtempSync(join(tmpdir(), "lembas-stdio-load-"));
const preload = join(dir, "loaded.ts");
const list = join(dir, "loaded.txt");
// At exit, every module the process loaded, one a line (Bun lists ES modules in require.cache too).
writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n")));\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What only some sessions need stays out of a `serve --stdio` that answered one prompt without it:
// whatever it loads counts towards the first garbage collection (bench/README.md).
test("serve --stdio, initialize to a first answer without a login, a library search, a fetch or an MCP server: none of their code is loaded", async () => {
  const a = await startStdioAgent({ cmd: [process.execPath, "--preload", preload, ENTRY, "serve", "--stdio"], env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  try {
    a.model.push(step({ text: "hello" }));
    await a.agent.request("initialize", initializeParams);
    const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
    expect(await a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).toMatchObject({ stopReason: "end_turn" });
  } finally {
    await a.close();
  }
  const modules = readFileSync(list, "utf8").split("\n").filter(Boolean);
  const ours = (path: string) => modules.some((m) => m.endsWith(path));
  // Loaded: the modules that hold the lazy parts (so the check can see a module at all).
  for (const path of ["src/tools/fetch.ts", "src/library/engine-library.ts", "src/account/personal-entry.ts", "src/engine/git-status.ts"]) expect([path, ours(path)]).toEqual([path, true]);
  for (const path of ["src/library/local.ts", "src/library/embeddings.ts", "src/library/indexer.ts", "src/account/personal-source.ts", "src/account/personalization.ts", "src/tools/guarded-get.ts", "src/tools/address-guard.ts", "src/mcp/sandboxed.ts", "src/mcp/hub.ts", "src/mcp/session-servers.ts"]) {
    expect([path, ours(path)]).toEqual([path, false]);
  }
});
