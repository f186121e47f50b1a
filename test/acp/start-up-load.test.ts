import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initializeParams, startStdioAgent } from "../support/acp.ts";
import { step } from "../support/engine.ts";
import { ENTRY } from "../support/run.ts";

// These probes read the source's module graph: they run `bun src/index.ts` (ENTRY) even when the run has compiled the program.

const dir = mkdtempSync(join(tmpdir(), "lembas-stdio-load-"));
const preload = join(dir, "loaded.ts");
const list = join(dir, "loaded.txt");
// At exit, every module the process loaded, one a line (Bun lists ES modules in require.cache too).
writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n")));\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One turn of an editor: initialize, session/new, a prompt "hi" answered "hello"; the prompt's answer. */
async function oneTurn(a: Awaited<ReturnType<typeof startStdioAgent>>): Promise<unknown> {
  a.model.push(step({ text: "hello" }));
  await a.agent.request("initialize", initializeParams);
  const { sessionId } = await a.agent.request("session/new", { cwd: a.project, mcpServers: [] });
  return a.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
}

// What only some sessions need stays out of a `serve --stdio` that answered one prompt without it:
// whatever it loads counts towards the first garbage collection (bench/START.md).
test("serve --stdio, initialize to a first answer without a login, a library search, a fetch or an MCP server: none of their code is loaded", async () => {
  const a = await startStdioAgent({ cmd: [process.execPath, "--preload", preload, ENTRY, "serve", "--stdio"], env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  try {
    expect(await oneTurn(a)).toMatchObject({ stopReason: "end_turn" });
  } finally {
    await a.close();
  }
  const modules = readFileSync(list, "utf8").split("\n").filter(Boolean);
  const ours = (path: string) => modules.some((m) => m.endsWith(path));
  // Loaded: the modules that hold the lazy parts (so the check can see a module at all).
  for (const path of ["src/tools/fetch.ts", "src/library/engine-library.ts", "src/code-index/engine-code-index.ts", "src/account/personal-entry.ts", "src/engine/git-status.ts"]) expect([path, ours(path)]).toEqual([path, true]);
  for (const path of ["src/library/local.ts", "src/library/embeddings.ts", "src/library/indexer.ts", "src/code-index/indexes.ts", "src/code-index/sync.ts", "src/account/personal-source.ts", "src/account/personalization.ts", "src/tools/guarded-get.ts", "src/tools/address-guard.ts", "src/mcp/sandboxed.ts", "src/mcp/hub.ts", "src/mcp/session-servers.ts", "src/lsp/pool.ts", "src/lsp/language-server.ts", "src/lsp/lsp-connection.ts"]) {
    expect([path, ours(path)]).toEqual([path, false]);
  }
});

// What `serve --stdio` loads before it answers initialize, and before its first answer chunk: the
// editor waits on both (bench/acp-stdio.ts). Read by a probe at the writes themselves
// (test/support/stdio-load-probe.ts).
const PROBE = join(import.meta.dir, "../support/stdio-load-probe.ts");

/** Every src/ module and package a fresh serve --stdio had loaded at its initialize answer and at its first chunk (the files' own paths under `raw`). */
async function loadedAtAnswers(env: Record<string, string>): Promise<{ initialize: string[]; firstChunk: string[]; raw: { initialize: string[]; firstChunk: string[] }; stdoutMade: boolean }> {
  const out = mkdtempSync(join(tmpdir(), "lembas-stdio-probe-"));
  try {
    const a = await startStdioAgent({ cmd: [process.execPath, "--preload", PROBE, ENTRY, "serve", "--stdio"], env: { PROBE_OUT: out, ...env } });
    try {
      await oneTurn(a);
    } finally {
      await a.close();
    }
    const paths = (name: string) => JSON.parse(readFileSync(join(out, `${name}.json`), "utf8")) as string[];
    const raw = { initialize: paths("initialize"), firstChunk: paths("first-chunk") };
    const stdoutMade = JSON.parse(readFileSync(join(out, "stdout-made.json"), "utf8")) as boolean;
    return { initialize: raw.initialize.map(shortName), firstChunk: raw.firstChunk.map(shortName), raw, stdoutMade };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** src/x.ts, or a package's name (node_modules/zod/… → zod). */
function shortName(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (pkg) return pkg[1] ?? path;
  const src = path.indexOf("/src/");
  return src === -1 ? path : path.slice(src + 1);
}

/** Exactly these before initialize is answered: the transport, the answer and the way to the service. */
const BEFORE_INITIALIZE = [
  "src/acp/agent.ts",
  "src/acp/early-initialize.ts",
  "src/app/ipc-socket.ts",
  "src/cli/stdio-service.ts",
  "src/cli/stdio.ts",
  "src/config/paths.ts",
  "src/home.ts",
  "src/jit-policy.ts",
  "src/mcp/transports-offered.ts",
  "src/rpc/line-split.ts",
  "src/rpc/stdio.ts",
  "src/rpc/stream.ts",
  "src/service/editor-protocol.ts",
  "src/timing.ts",
  "src/version.ts",
];

/** Our modules and the packages (paths outside src/, the probe and package.json, are left out). */
const ours = (names: string[]) => [...new Set(names.filter((n) => !n.startsWith("/")))].sort();

/** The node: built-ins these source files import statically (what loads with them; a require() in a function loads only when called). */
function builtinsImported(files: string[]): string[] {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const found = files
    .filter((f) => /\.[cm]?[jt]s$/.test(f) && !f.includes("stdio-load-probe"))
    .flatMap((f) => transpiler.scanImports(readFileSync(f, "utf8")).filter((i) => i.kind === "import-statement"))
    .map((i) => i.path)
    .filter((p) => p.startsWith("node:") || ["crypto", "stream", "child_process", "http", "https", "net", "tls", "zlib"].includes(p));
  return [...new Set(found)].sort();
}

test("serve --stdio answers initialize before zod, the ACP SDK, the config's schema, the store or the engine load: only its transport and the answer's modules", async () => {
  const { initialize, firstChunk, raw, stdoutMade } = await loadedAtAnswers({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  expect(ours(initialize).filter((n) => n !== "src/index.ts")).toEqual(BEFORE_INITIALIZE);
  // Nor is process.stdout made (making it loads Node's stream modules: rpc/stdio.ts).
  expect(stdoutMade).toBe(false);
  // Of Node's built-ins, only the cheap ones: node:crypto is not one (app/ipc-socket.ts).
  expect(builtinsImported(raw.initialize)).toEqual(["node:fs", "node:path"]);
  // Nor does anything an editor's first chunk needs load it.
  expect(builtinsImported(raw.firstChunk).filter((b) => b.endsWith("crypto"))).toEqual([]);
  // The probe sees what loads after: by the first chunk the engine and zod are there.
  for (const name of ["zod", "src/engine/engine.ts", "src/acp/server.ts", "src/rpc/json-rpc.ts"]) expect([name, firstChunk.includes(name)]).toEqual([name, true]);
});

test("serve --stdio reaches its first chunk without the ACP SDK's module: our own dispatcher serves the editor (the SDK builds every schema at load)", async () => {
  const { firstChunk } = await loadedAtAnswers({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  expect(firstChunk.includes("@agentclientprotocol/sdk")).toBe(false);
});

test("serve --stdio's first chunk comes before the terminal's, the link's and the service's own modules load", async () => {
  const { firstChunk } = await loadedAtAnswers({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  const early = ours(firstChunk).filter((n) => n.startsWith("src/tui/") || n.startsWith("src/link/") || (n.startsWith("src/service/") && n !== "src/service/editor-protocol.ts"));
  expect(early).toEqual([]);
  for (const name of ["@earendil-works/pi-tui", "@modelcontextprotocol/sdk"]) expect([name, firstChunk.includes(name)]).toEqual([name, false]);
});

// Modules only a config.yaml the fast reader does not take needs (config/load.ts): the editor's
// session and its first chunk need none of them (their schema cost 15 % of that CPU: bench/START.md).
test("serve --stdio reaches its first chunk without the config's schema: ACP's modes and efforts, and its params, are checked without it", async () => {
  const { firstChunk } = await loadedAtAnswers({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  for (const name of ["src/config/schema.ts", "src/config/permissions-schema.ts", "src/config/validate.ts"]) expect([name, firstChunk.includes(name)]).toEqual([name, false]);
  // Loaded: the fast reader that took the file (so the check sees the config read at all).
  expect(firstChunk.includes("src/config/fast-read.ts")).toBe(true);
});

test("serve --stdio's first chunk loads no bun:ffi (only a command's undo watches the project: engine/inotify.ts) and no node:url (Bun's own makes a file's URL)", async () => {
  const { raw } = await loadedAtAnswers({ LEMBAS_STDIO_OWN_ENGINE: "1" });
  // Bun runs node:url as JavaScript, loaded with the first module that imports it.
  expect(builtinsImported(raw.firstChunk).filter((b) => b.endsWith("url"))).toEqual([]);
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const importers = raw.firstChunk
    .filter((f) => /\.[cm]?[jt]s$/.test(f) && !f.includes("stdio-load-probe"))
    .filter((f) => transpiler.scanImports(readFileSync(f, "utf8")).some((i) => i.kind === "import-statement" && i.path === "bun:ffi"))
    .map(shortName);
  expect(importers).toEqual([]);
  // The module that watches is loaded (so the check sees it at all).
  expect(raw.firstChunk.map(shortName)).toContain("src/engine/inotify.ts");
});

test("serve --stdio's stdout carries protocol messages only: a stray process.stdout.write or console.log in the process goes to stderr", async () => {
  const a = await startStdioAgent({ cmd: [process.execPath, "--preload", join(import.meta.dir, "../support/stray-stdout.ts"), ENTRY, "serve", "--stdio"], env: { LEMBAS_STDIO_OWN_ENGINE: "1" } });
  try {
    await oneTurn(a);
  } finally {
    await a.close();
  }
  for (const line of a.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
  expect(a.stderr()).toContain("stray process.stdout.write");
  expect(a.stderr()).toContain("stray console.log");
});
