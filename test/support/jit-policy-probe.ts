/**
 * Preloaded (BUN_OPTIONS="--preload …") by test/service/jit-policy.test.ts: the process starts
 * under the raised tier-up thresholds the compiled binary is built with (build.ts's `jitPolicy`),
 * and each later call of `Bun.unsafe.setJITPolicy` is written to PROBE_OUT as a JSON line: its
 * scale, and whether PROBE_SOCKET (the service's control socket) existed then.
 */
import { appendFileSync, existsSync } from "node:fs";
import { START_JIT_POLICY } from "../../src/jit-policy.ts";

const out = process.env.PROBE_OUT ?? "";
const socket = process.env.PROBE_SOCKET ?? "";
const set = Bun.unsafe.setJITPolicy.bind(Bun.unsafe);
set(START_JIT_POLICY);
Bun.unsafe.setJITPolicy = (scale: number) => {
  appendFileSync(out, `${JSON.stringify({ scale, socket: socket !== "" && existsSync(socket) })}\n`);
  set(scale);
};
