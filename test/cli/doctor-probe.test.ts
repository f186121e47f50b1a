/**
 * lembas doctor --probe against a server that lists its models and then hangs on chat.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLembas, type Sandbox, sandbox } from "../support/run.ts";

let server: ReturnType<typeof Bun.serve> | null = null;
let box: Sandbox | null = null;
afterEach(() => {
  server?.stop(true);
  box?.cleanup();
  server = null;
  box = null;
});

test("lembas doctor --probe against a server that lists its models and then hangs on chat: ends within its bound, with a sentence that says so", async () => {
  server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      if (new URL(req.url).pathname === "/v1/models") return Response.json({ object: "list", data: [{ id: "m", object: "model", owned_by: "someone" }] });
      return new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response(""))));
    },
  });
  const url = `http://127.0.0.1:${server.port}/v1`;
  box = sandbox();
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, "config.yaml"), `model: test/m\nconnections:\n  test:\n    base_url: ${url}\n`);
  // The probe's bound (15 s) cut to 1 s, so that the test does not sit it out; the line says it was reached.
  const result = await runLembas(box, ["doctor", "--probe"], { timeoutMs: 25_000, env: { LEMBAS_TEST_MODEL_PROBE_MS: "1000" } });
  expect(result.stdout.split("\n")).toContain(`ok   model connection test: tools: unknown (m: the model server at ${url} did not answer within 1 s)`);
}, 30_000);
