import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServerSpec } from "../../src/mcp/spec.ts";

export const SERVER = join(import.meta.dir, "../support/mcp-server.ts");

/** A spec running the test server with these switches; `tag` marks its command line, to find it in /proc. */
export function stdioServer(name: string, tag: string, ...switches: string[]): McpServerSpec {
  return { name, source: "config", transport: { type: "stdio", command: process.execPath, args: [SERVER, `--tag=${tag}`, ...switches], env: {} } };
}

/** The pids of running processes whose command line holds `tag` (zombies left out). */
export function processesTagged(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(join("/proc", entry, "cmdline"), "utf8");
      const stat = readFileSync(join("/proc", entry, "stat"), "utf8");
      if (cmdline.includes(tag) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
