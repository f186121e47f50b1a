import { McpHub } from "./hub.ts";
import { sandboxedServers } from "./sandboxed.ts";
import type { ServerInspection } from "./list-text.ts";
import type { McpListing } from "./listing.ts";

/** How long `lembas mcp list` and `lembas doctor` give a server to start and list its tools. */
export const INSPECT_START_MS = 5_000;

/**
 * Starts the listing's usable servers together (each within `startMs`), notes whether each
 * started and its tools (in the tools' sandbox, which hides `hidden`), and stops them all again: what `lembas mcp list` and `lembas doctor` show.
 */
export async function inspectServers(
  listing: McpListing,
  options: { env: Record<string, string>; cwd: string; hidden: readonly string[]; startMs?: number; onNotice?: (message: string) => void },
): Promise<Map<string, ServerInspection>> {
  const specs = listing.servers.flatMap((s) => (s.state === "usable" && s.spec ? [s.spec] : []));
  const found = new Map<string, ServerInspection>();
  if (specs.length === 0) return found;
  const startMs = options.startMs ?? INSPECT_START_MS;
  const notice = options.onNotice ?? (() => undefined);
  // Started as a session starts them: in the tools' sandbox.
  const wrap = sandboxedServers({ hidden: options.hidden, root: options.cwd, env: options.env, notice });
  const hub = new McpHub({ startMs, callMs: startMs, env: options.env, cwd: options.cwd, wrap, onNotice: notice });
  try {
    const problems = await hub.start(specs, AbortSignal.timeout(startMs + 1_000));
    const failed = new Map(problems.map((p) => [p.server, p.message]));
    for (const server of hub.servers()) {
      const error = failed.get(server.name);
      found.set(server.name, error !== undefined || server.state !== "up" ? { starts: false, error: error ?? `it is ${server.state}` } : { starts: true, tools: server.tools });
    }
    return found;
  } finally {
    await hub.stop();
  }
}
