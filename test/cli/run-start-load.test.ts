/**
 * What a fresh `lembas run` loads before its first model request (bench/first-request.ts's figure):
 * each module is paid for in every one-shot's start, so one that slips in front shows up here. A
 * preloaded probe (test/support/first-request-probe.ts) lists the modules loaded when the first
 * chat completion request is sent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { step } from "../support/engine.ts";
import { type ScriptedModel, startModel } from "../support/model.ts";
import { projectSandbox, runLembas } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/first-request-probe.ts");
/**
 * Node's modules that cost a fresh process more than the whole of a compiled hello-world's start
 * (node:crypto, about 10 ms: it loads the streams), or a part of it (node:os, node:util,
 * node:readline, node:url): none is loaded before the first request, in our code or a package's
 * (the command line is read by cli/arg-tokens.ts, not node:util's parseArgs).
 */
const COSTLY_BUILTINS = ["node:crypto", "crypto", "node:readline", "node:readline/promises", "readline", "node:os", "os", "node:url", "url", "node:util", "util"];

let model: ScriptedModel;
let loaded: string[] = [];
beforeAll(async () => {
  model = await startModel();
  const box = projectSandbox(model.url);
  try {
    model.push(step({ text: "hello" }));
    const out = join(box.dir, "loaded.json");
    // The person's config.yaml with the hooks, permissions and MCP servers it may have: none here;
    // an embedding model, so that the project's code index is on (and must wait for the answer).
    appendFileSync(join(box.configDir, "config.yaml"), "embedding: test/embed-a\n");
    const result = await runLembas(box, ["run", "hi"], { cwd: box.project, env: { BUN_OPTIONS: `--preload ${PROBE}`, PROBE_OUT: out }, source: true });
    expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
    loaded = JSON.parse(readFileSync(out, "utf8")) as string[];
  } finally {
    box.cleanup();
  }
});
afterAll(() => model.close());

const ours = (path: string) => loaded.some((m) => m.endsWith(`/src/${path}`));

test("the probe sees the modules that make the request", () => {
  for (const path of ["cli/run.ts", "engine/step-loop.ts", "model/client.ts", "engine/git-status.ts"]) expect([path, ours(path)]).toEqual([path, true]);
});

test("what only some runs need is not loaded before the first request", () => {
  // The terminal's questions (stdin is no terminal here); the service, the link, ACP; the local library, MCP servers, logins; the code index; the language servers.
  for (const path of ["cli/ask.ts", "cli/stdio.ts", "acp/server.ts", "service/daemon.ts", "library/local.ts", "library/embeddings.ts", "mcp/hub.ts", "account/personalization.ts", "tui/main.ts", "code-index/indexes.ts", "code-index/sync.ts", "code-index/code-chunks.ts", "lsp/pool.ts", "lsp/language-server.ts", "lsp/lsp-connection.ts", "tools/lsp-answers.ts"]) {
    expect([path, ours(path)]).toEqual([path, false]);
  }
  // config.yaml's schema: a well-formed file is read without it (config/fast-read.ts).
  for (const path of ["config/schema.ts", "config/validate.ts", "config/keys.ts", "config/permissions-schema.ts"]) expect([path, ours(path)]).toEqual([path, false]);
  // The Messages and Responses wires (this run's connection speaks chat completions); the fetch tool's HTML converter.
  for (const path of ["model/messages/messages-stream.ts", "model/messages/messages-reader.ts", "model/messages/messages-body.ts", "model/responses-wire.ts", "model/responses-reader.ts", "model/responses-body.ts", "tools/html-markdown.ts"]) {
    expect([path, ours(path)]).toEqual([path, false]);
  }
  expect(loaded.filter((m) => m.includes("/node_modules/@agentclientprotocol/"))).toEqual([]);
  // The command analyser (engine/permissions.ts loads it with the first command judged).
  for (const path of ["engine/command-keys.ts", "engine/command-concern.ts", "engine/command-writes.ts", "engine/command-option-lists.ts", "engine/command-places.ts", "engine/command-disk.ts"]) {
    expect([path, ours(path)]).toEqual([path, false]);
  }
  // A helper's run (the task tool) and a plan's approval (plan_submit): loaded when first asked for.
  for (const path of ["engine/task-helper.ts", "engine/sub-agent.ts", "engine/plan-approval.ts"]) expect([path, ours(path)]).toEqual([path, false]);
  // The ignore rules of a tree's walk: read by the tools that list or search files, not before.
  expect(loaded.filter((m) => m.includes("/node_modules/ignore/"))).toEqual([]);
});

test("no module loaded before the first request imports one of Node's costly modules", () => {
  const importing: string[] = [];
  for (const file of loaded) {
    if (!/\.(ts|js|mjs|cjs)$/.test(file)) continue;
    const source = readFileSync(file, "utf8");
    for (const name of COSTLY_BUILTINS) {
      const quoted = `["']${name.replace("/", "\\/")}["']`;
      if (new RegExp(`(\\bfrom\\s*${quoted}|\\bimport\\s*${quoted}|\\brequire\\(${quoted}\\)\\s*[;,.]?\\s*$)`, "m").test(source)) importing.push(`${file.replace(/.*\/(src|node_modules)\//, "$1/")} imports ${name}`);
    }
  }
  expect(importing).toEqual([]);
});

test("no module loaded before the first request touches process.stdin, stdout or stderr", () => {
  // Their first touch (even of .isTTY) loads Node's streams: about 18 ms and 9 MB of a one-shot (cli/plain-out.ts).
  const touching: string[] = [];
  for (const file of loaded) {
    if (!file.includes("/src/") || !file.endsWith(".ts")) continue;
    const source = readFileSync(file, "utf8").replace(/^\s*(\/\/|\*).*$/gm, "");
    if (/\bprocess\.std(in|out|err)\b/.test(source)) touching.push(file.replace(/.*\/src\//, "src/"));
  }
  expect(touching).toEqual([]);
});
