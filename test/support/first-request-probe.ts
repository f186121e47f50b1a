/**
 * Preloaded into `lembas run` (BUN_OPTIONS="--preload …") by test/cli/run-start-load.test.ts: at the
 * first chat completion request the program sends, it writes the modules loaded so far (every file
 * of ours and of our packages: Bun lists ES modules in require.cache) to PROBE_OUT as JSON.
 */
import { writeFileSync } from "node:fs";

const out = process.env.PROBE_OUT ?? "";
const send = globalThis.fetch;
let done = false;
globalThis.fetch = Object.assign(
  (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!done && url.endsWith("/chat/completions")) {
      done = true;
      writeFileSync(out, JSON.stringify(Object.keys(require.cache)));
    }
    return send(input, init);
  },
  { preconnect: send.preconnect },
);
