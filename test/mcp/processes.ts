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

/**
 * The pids of the servers themselves whose command line holds `tag`: those that run bun, not the
 * sandbox (bwrap and its PID 1) they run in, whose command lines hold the tag too.
 */
export function serversTagged(tag: string): number[] {
  return processesTagged(tag).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === process.execPath;
    } catch {
      return false;
    }
  });
}
