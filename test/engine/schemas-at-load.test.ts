/**
 * The zod schemas a fresh process builds as its modules load: each costs its allocation and its
 * share of the first garbage collection in every start (bench/README.md), so a module loaded before
 * a one-shot's first request, or an editor's first answer, builds its schemas on first use unless
 * that first request uses them (config.yaml's schema, the model listing's). Counted in a heap snapshot
 * of a fresh process (test/support/zod-schemas-alive.ts), not timed.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../support/run.ts";

const PROBE = join(import.meta.dir, "../support/zod-schemas-alive.ts");
const src = (path: string) => join(ROOT, "src", path);

/** What the first request itself parses with: built at load, and counted before the modules under test. */
const USED_AT_START = ["config/schema.ts", "config/load.ts", "model/models.ts", "store/listings.ts"].map(src);

/** Loaded before the first request, their schemas used only when something comes that needs them. */
const LAZY = [
  "model/chunks.ts", // only a chunk that fails the check by hand
  "model/errors.ts", // an error body
  "model/discovery.ts", // a local server's own endpoints
  "model/client.ts",
  "engine/records.ts", // a stored message read back
  "engine/hook-output.ts", // a hook that prints JSON
  "engine/session-rules.ts", // a project's settings file
].map(src);

async function schemasAlive(first: string[], then: string[]): Promise<{ first: number; then: number }> {
  const proc = Bun.spawn([process.execPath, PROBE, first.join(","), then.join(",")], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the probe failed: ${err}`);
  return JSON.parse(out) as { first: number; then: number };
}

test("the probe sees the schemas a module builds at load", async () => {
  const counted = await schemasAlive([], USED_AT_START);
  expect(counted.first).toBe(0);
  expect(counted.then).toBeGreaterThan(100);
});

test("the model's, the records', the hooks' and the settings files' schemas are built on first use, not at load", async () => {
  const counted = await schemasAlive(USED_AT_START, LAZY);
  expect(counted.then - counted.first).toBe(0);
}, 20_000);
