/**
 * Preloaded into `lembas serve --stdio` (`--preload`) by test/acp/start-up-load.test.ts: when the
 * process writes its initialize answer, and when it writes its first agent_message_chunk, it writes
 * the modules loaded so far (JSON) to PROBE_OUT/initialize.json and PROBE_OUT/first-chunk.json,
 * and at initialize whether process.stdout had been made (PROBE_OUT/stdout-made.json).
 * It watches the one writer that reaches stdout (rpc/stdio.ts's guardStdout), at the write itself.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tapStdoutWrites } from "./stdout-tap.ts";

const out = process.env.PROBE_OUT ?? "";

const record = (name: string) => {
  const file = join(out, `${name}.json`);
  if (existsSync(file)) return;
  writeFileSync(file, JSON.stringify(Object.keys(require.cache)));
  // Whether process.stdout was made by then: a lazy one is an accessor still (reading it would make it).
  if (name === "initialize") writeFileSync(join(out, "stdout-made.json"), JSON.stringify(typeof Object.getOwnPropertyDescriptor(process, "stdout")?.get !== "function"));
};

const seen = (text: string) => {
  for (const line of text.split("\n")) {
    if (!line) continue;
    const message = JSON.parse(line) as { result?: { agentCapabilities?: unknown }; params?: { update?: { sessionUpdate?: unknown } } };
    if (message.result?.agentCapabilities !== undefined) record("initialize");
    if (message.params?.update?.sessionUpdate === "agent_message_chunk") record("first-chunk");
  }
};

// serve --stdio writes its lines as strings (rpc/stdio.ts)
tapStdoutWrites(seen);
