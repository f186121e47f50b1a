/**
 * The zod schemas a fresh process builds as its modules load: each costs its allocation and its
 * share of the first garbage collection in every start (bench/START.md), so a module loaded before
 * a one-shot's first request, or an editor's first answer, builds its schemas on first use unless
 * that first request uses them (config.yaml's schema, the model listing's). Counted in a heap snapshot
 * of a fresh process (test/support/zod-schemas-alive.ts), not timed.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/zod-schemas-alive.ts");
const src = (path: string) => join(ROOT, "src", path);

/** What the first request itself parses with: built at load, and counted before the modules under test. */
const USED_AT_START = ["config/schema.ts", "config/load.ts", "store/listings.ts"].map(src);

/** Loaded before the first request, their schemas used only when something comes that needs them. */
const LAZY = [
  "model/models.ts", // a server's /v1/models answer (the kept listing is read at start)
  "model/chunks.ts", // only a chunk that fails the check by hand
  "model/errors.ts", // an error body
  "model/discovery.ts", // a local server's own endpoints
  "model/client.ts",
  "engine/records.ts", // a stored message read back
  "engine/hook-output.ts", // a hook that prints JSON
  "engine/session-rules.ts", // a project's settings file
  "engine/project-hooks.ts", // the same, with hooks
  "mcp/from-project.ts", // a project's .mcp.json
  "library/account-contract.ts", // an account's library
].map(src);

const dir = mkdtempSync(join(tmpdir(), "lembas-schemas-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Counted = { first: number; then: number; loaded: number | null };

async function schemasAlive(first: string[], then: string[], config?: string): Promise<Counted> {
  const proc = Bun.spawn([process.execPath, PROBE, first.join(","), then.join(","), ...(config ? [config] : [])], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the probe failed: ${err}`);
  return JSON.parse(out) as Counted;
}

test("the probe sees the schemas a module builds at load", async () => {
  const counted = await schemasAlive([], USED_AT_START);
  expect(counted.first).toBe(0);
  expect(counted.then).toBeGreaterThan(100);
});

test("the model's, the records', the hooks' and the settings files' schemas are built on first use, not at load", async () => {
  const counted = await schemasAlive(USED_AT_START, LAZY);
  // JSC's collector scans the stack conservatively: an object or two may outlive its use (each of these modules built 3 to 80).
  expect(counted.then - counted.first).toBeLessThanOrEqual(2);
}, 20_000);

test("config.yaml without hooks or MCP servers is checked without building their schemas", async () => {
  const plain = join(dir, "plain.yaml");
  writeFileSync(plain, "model: local/qwen\nconnections:\n  local:\n    base_url: http://127.0.0.1:11434/v1\n");
  const full = join(dir, "full.yaml");
  writeFileSync(
    full,
    "model: local/qwen\nconnections:\n  local:\n    base_url: http://127.0.0.1:11434/v1\nmcp:\n  notes:\n    command: notes-server\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: ./done.sh\n",
  );
  const withPlain = await schemasAlive([], [src("config/load.ts")], plain);
  const withFull = await schemasAlive([], [src("config/load.ts")], full);
  const built = (counted: Counted) => (counted.loaded ?? 0) - counted.then;
  // The hooks' and the MCP servers' schemas are about 50 objects; a stray one or two may outlive a collection.
  expect(built(withFull)).toBeGreaterThan(built(withPlain) + 20);
}, 20_000);
