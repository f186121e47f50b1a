/**
 * The terminal runs under the start's raised JIT thresholds (src/jit-policy.ts) until it is in
 * use: an idle terminal compiles nothing of what it runs meanwhile (its link to a service tried
 * again and again), and its first key has the normal thresholds back. A preloaded probe
 * (test/support/jit-policy-probe.ts) starts it the binary's way and lists the calls that set them.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/run.ts";
import { SESSION_OPEN, screenSuite } from "../support/screens.ts";
import { HAVE_TMUX } from "../support/tmux.ts";

const PROBE = join(import.meta.dir, "../support/jit-policy-probe.ts");

const suite = screenSuite();
let box: Sandbox & { project: string };
beforeEach(() => {
  ({ box } = suite);
});

function calls(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { scale: number }).scale);
}

describe.skipIf(!HAVE_TMUX)("the terminal's JIT thresholds", () => {
  test("stay raised while it idles with its session open, and are back at its first key", async () => {
    const out = join(box.dir, "jit.jsonl");
    // The deadline other commands have, at 1 ms: one the terminal kept would have passed long before its session opened.
    const screen = await suite.open([], { env: { BUN_OPTIONS: `--preload ${PROBE}`, PROBE_OUT: out, LEMBAS_TEST_STARTED_UP_MS: "1" } });
    await screen.waitFor(SESSION_OPEN);
    expect(calls(out)).toEqual([]);
    await screen.write("hello there");
    await screen.waitFor("hello there");
    expect(calls(out)).toEqual([1]);
    // Ctrl-C clears the draft, Ctrl-D on the empty composer quits.
    await screen.type("C-c");
    await screen.waitGone("hello there");
    await screen.type("C-d");
    expect(await screen.exited()).toBe(0);
  });
});
