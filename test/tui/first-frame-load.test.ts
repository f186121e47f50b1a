/**
 * What the terminal loads before its first frame (bench/tui.ts's first-frame figure): the modules
 * `lembas` imports to open the terminal, in a fresh process, leave out the ACP SDK, whose schemas
 * were about half the CPU spent before the first frame. The SDK is for the link to the service,
 * which starts once the session is open (src/tui/runtime.ts's linkService).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const SRC = join(import.meta.dir, "../../src");

describe("before the terminal's first frame", () => {
  test("the modules that open the terminal do not load the ACP SDK", () => {
    const script = [
      `await import(${JSON.stringify(join(SRC, "cli/tui.ts"))});`,
      `await import(${JSON.stringify(join(SRC, "tui/main.ts"))});`,
      "const loaded = Object.keys(require.cache);",
      "console.log(JSON.stringify({ count: loaded.length, sdk: loaded.filter((k) => k.includes('@agentclientprotocol')) }));",
    ].join("\n");
    const res = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(res.stderr.toString()).toBe("");
    const { count, sdk } = JSON.parse(res.stdout.toString()) as { count: number; sdk: string[] };
    // The terminal's own modules were loaded: the look into the module cache sees them.
    expect(count).toBeGreaterThan(100);
    expect(sdk).toEqual([]);
  });
});

describe("a terminal that no service runs for", () => {
  test("the sharing it loads once its session is open does not load the ACP agent nor its SDK until a service connects", () => {
    // tui/runtime.ts's linkService loads share.ts whether or not a service runs; the agent comes with the first connection (share-agent.ts).
    const script = [
      `await import(${JSON.stringify(join(SRC, "tui/share.ts"))});`,
      "const loaded = Object.keys(require.cache);",
      "console.log(JSON.stringify({ share: loaded.some((k) => k.endsWith('/src/tui/share.ts')), agent: loaded.filter((k) => k.includes('@agentclientprotocol') || /src\\/acp\\/(server|lembas|prompt|whereabouts)\\.ts$/.test(k)) }));",
    ].join("\n");
    const res = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(res.stderr.toString()).toBe("");
    const { share, agent } = JSON.parse(res.stdout.toString()) as { share: boolean; agent: string[] };
    expect(share).toBe(true);
    expect(agent).toEqual([]);
  });
});
