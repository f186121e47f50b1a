/**
 * Preloaded into `lembas` (BUN_OPTIONS="--preload …") by test/tui/first-frame.test.ts: at the first
 * write to the terminal that shows PROBE_READY (the status bar's model ref: the first frame), it
 * writes the modules loaded so far to PROBE_OUT; then, with PROBE_GATE set, it holds the process
 * (as a slow load would) until that file exists, so that keys typed meanwhile reach a program that
 * has drawn its first frame and not yet read them.
 */
import { existsSync, writeFileSync } from "node:fs";

const ready = process.env.PROBE_READY ?? "";
const out = process.env.PROBE_OUT ?? "";
const gate = process.env.PROBE_GATE;
/** How long the gate is waited for at most: a test that never opens it fails on its own wait, not here. */
const GATE_WAIT_MS = 20_000;

let seen = "";
let done = false;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const result = (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  if (done) return result;
  seen += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  if (!seen.includes(ready)) return result;
  done = true;
  writeFileSync(out, JSON.stringify(Object.keys(require.cache)));
  if (gate) {
    const until = Date.now() + GATE_WAIT_MS;
    while (!existsSync(gate) && Date.now() < until) Bun.sleepSync(5);
  }
  return result;
}) as typeof process.stdout.write;
