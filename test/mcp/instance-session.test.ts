import { afterEach, expect, test } from "bun:test";
import { getInstanceMcp } from "../../src/store/instance-mcp.ts";
import { saveLogin } from "../../src/store/logins.ts";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";
import { type Instance, startInstance } from "../support/instance.ts";
import { mcpHttpHandler } from "../support/mcp-server.ts";

const TOKEN = "device-token-slow-mcp";

let h: EngineHarness | null = null;
let instance: Instance | null = null;
afterEach(async () => {
  delete process.env.LEMBAS_TEST_BACKGROUND_PROBE_MS;
  await h?.close();
  h = null;
  await instance?.close();
  instance = null;
});

const toolNames = (tools: unknown[] | null | undefined) => (tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

test("no session waits on the instance's /mcp probe: a slow one is asked in the background, and the next session has its tools", async () => {
  // /mcp holds the probe until the first session's prompt has its answer (an order, not a clock: a
  // session that waited on the probe would wait out its limit, here ten minutes, and time the test
  // out); then answers at once.
  process.env.LEMBAS_TEST_BACKGROUND_PROBE_MS = "600000";
  let slow = true;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const serve = mcpHttpHandler({ token: TOKEN });
  instance = await startInstance({
    token: TOKEN,
    mcp: async (request) => {
      if (slow) await held;
      return serve(request);
    },
  });
  h = await engineHarness({ mcp: true });
  saveLogin(h.db, { name: "example", url: instance.url, token: TOKEN, protocols: [1, 2] });

  const first = await h.session();
  h.model.push(step({ text: "at once" }));
  await first.prompt({ text: "hi" });
  expect(toolNames(h.model.requests.at(-1)?.body.tools).filter((n) => n.startsWith("mcp__"))).toEqual([]);
  // The probe goes on in the background, and its answer is kept.
  expect(getInstanceMcp(h.db, instance.url)).toBeNull();
  release();
  const end = Date.now() + 10_000;
  while (!getInstanceMcp(h.db, instance.url) && Date.now() < end) await Bun.sleep(50);
  expect(getInstanceMcp(h.db, instance.url)?.serves).toBe(true);
  slow = false;

  const second = await h.session();
  h.model.push(step({ text: "with tools" }));
  await second.prompt({ text: "hi" });
  expect(toolNames(h.model.requests.at(-1)?.body.tools)).toContain("mcp__example__echo");
}, 30_000);
