import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { type EngineHarness, engineHarness, ofType, step } from "../support/engine.ts";
import { ROOT } from "../support/run.ts";
import { ALL_TOOLS } from "../../src/tools/index.ts";
import { processesTagged, serversTagged } from "./processes.ts";

const SERVER = join(ROOT, "test/support/mcp-server.ts");

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** Waits until `check` holds (servers start and stop on their own time). */
async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(20);
  }
}

const harness = (tag: string) =>
  engineHarness({ mcp: true, config: { mcp: { notes: { command: process.execPath, args: [SERVER, `--tag=${tag}`] } } } });

test("a session's servers start as it is made and stop when it is released, deleted or the engine stops", async () => {
  const tag = `life-${crypto.randomUUID()}`;
  h = await harness(tag);
  const released = await h.session();
  await until(() => serversTagged(tag).length === 1);
  await h.engine.release(released.id);
  expect(processesTagged(tag)).toEqual([]);

  const deleted = await h.session();
  h.model.push(step({ toolCalls: [{ name: "mcp__notes__read_note", arguments: { name: "a" } }] }), step({ text: "ok" }));
  await deleted.prompt({ text: "go" });
  expect(ofType(h.events(deleted), "tool_end")[0]).toMatchObject({ name: "mcp__notes__read_note", output: "note a: buy milk", isError: false });
  await h.engine.delete(deleted.id);
  expect(processesTagged(tag)).toEqual([]);

  // Deleted while its server still starts: it is stopped all the same.
  const early = await h.session();
  await h.engine.delete(early.id);
  expect(processesTagged(tag)).toEqual([]);

  await h.session();
  await h.session();
  await until(() => serversTagged(tag).length === 2);
  expect(await h.engine.stop()).toEqual([]);
  expect(processesTagged(tag)).toEqual([]);
}, 30_000);

test("a model with a small window is offered the MCP tools too, after the built-ins that have a brief", async () => {
  const tag = `small-${crypto.randomUUID()}`;
  h = await engineHarness({
    mcp: true,
    models: [{ id: "test-model", context_length: 8_192 }],
    config: { mcp: { notes: { command: process.execPath, args: [SERVER, `--tag=${tag}`] } } },
  });
  const session = await h.session();
  h.model.push(step({ text: "ok" }));
  await session.prompt({ text: "hi" });
  const names = (h.model.requests[0]?.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
  const first = names.findIndex((n) => n.startsWith("mcp__"));
  expect(first).toBeGreaterThan(0);
  expect(names.slice(first)).toEqual(names.filter((n) => n.startsWith("mcp__")));
  expect(names).toContain("mcp__notes__echo");
  // The window is small: built-ins without a brief are left out.
  expect(first).toBeLessThan(ALL_TOOLS.length);
}, 30_000);
