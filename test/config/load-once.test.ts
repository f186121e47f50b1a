/**
 * config.yaml is checked once or twice a process: zod's fast path for an object (code it writes and
 * compiles at the object's first parse) would cost more than the parse it speeds up, so none is made.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/config-code-compiled.ts");

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const CONFIG = `model: local/qwen
connections:
  local:
    base_url: http://127.0.0.1:11434/v1
    context: 32768
mcp:
  notes:
    command: notes-server
hooks:
  PreToolUse:
    - matcher: bash
      hooks:
        - type: command
          command: ./check.sh
permissions:
  deny: ["Bash(rm -rf:*)"]
tui:
  vim: true
`;

async function load(text: string | null): Promise<{ compiled: number; config: Record<string, unknown> }> {
  mkdirSync(box.configDir, { recursive: true });
  const file = join(box.configDir, "config.yaml");
  if (text !== null) writeFileSync(file, text);
  const proc = Bun.spawn([process.execPath, PROBE, file], { env: box.env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the probe failed: ${err}`);
  return JSON.parse(out) as { compiled: number; config: Record<string, unknown> };
}

test("loading config.yaml compiles no code, and gives the config with its defaults", async () => {
  const loaded = await load(CONFIG);
  expect(loaded.compiled).toBe(0);
  expect(loaded.config).toMatchObject({
    model: "local/qwen",
    mode: "edit",
    connections: { local: { base_url: "http://127.0.0.1:11434/v1", context: 32768 } },
    mcp: { notes: { command: "notes-server" } },
    mcp_timeouts: { start: 10, call: 60 },
    hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: "./check.sh" }] }] },
    permissions: { allow: [], ask: [], deny: ["Bash(rm -rf:*)"] },
    remote: { roots: ["~/work"], max_mode: "edit" },
    tui: { vim: true, notify: "desktop" },
  });
});

test("no config.yaml: the defaults, and no code compiled either", async () => {
  const loaded = await load(null);
  expect(loaded.compiled).toBe(0);
  expect(loaded.config).toMatchObject({ model: null, effort: "medium", mode: "edit", connections: {}, theme: "dark" });
});
