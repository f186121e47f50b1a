import { afterEach, expect, test } from "bun:test";
import { type EngineHarness, engineHarness, step } from "../support/engine.ts";
import { SERVER } from "./servers.ts";

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

test("a turn cancelled while its session's MCP servers still start ends at once, not at their start limit", async () => {
  // A server that never answers initialize: the first step would wait its whole start limit (10
  // minutes here), and time the test out.
  h = await engineHarness({
    mcp: true,
    config: { mcp_timeouts: { start: 600, call: 60 }, mcp: { mute: { command: process.execPath, args: [SERVER, "--no-initialize"] } } },
  });
  const session = await h.session();
  h.model.push(step({ text: "never sent" }));
  const answer = session.prompt({ text: "hi" });
  await Bun.sleep(300);
  session.cancel();
  expect((await answer).stopReason).toBe("cancelled");
  expect(h.model.requests.filter((r) => Array.isArray(r.body.tools))).toEqual([]);
}, 30_000);
