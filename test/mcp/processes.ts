import { readdirSync, readFileSync } from "node:fs";

/** The pids of the processes whose command line holds `tag` (read from /proc). */
export function processesTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(tag)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
