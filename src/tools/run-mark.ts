/**
 * A mark in the environment of a command's processes, so that stopping it reaches the ones that
 * left its process group: `setsid server &` or a daemon's double fork make a session of their
 * own, and a group signal misses them (a sandbox's PID namespace holds them; without one nothing
 * did). Every process a command starts inherits the variable, unless it clears its environment on
 * purpose. Found through /proc; where there is none (macOS) only the group is reached.
 */
import { readdirSync, readFileSync } from "node:fs";
import { procStat } from "./proc-stat.ts";

const NAME = "LEMBAS_RUN";

/** A new mark, and ENV with it. */
export function marked(env: Record<string, string>): { env: Record<string, string>; mark: string } {
  const mark = crypto.randomUUID();
  return { env: { ...env, [NAME]: mark }, mark };
}

/**
 * The live processes (of this user) carrying the mark, this process aside; those of the process
 * group OUTSIDE_OF left out (signalled as a group already: a second SIGTERM may cut a shutdown short).
 */
export function markedPids(mark: string, outsideOf?: number): number[] {
  const entry = `${NAME}=${mark}\0`;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1");
      if (!environ.startsWith(entry) && !environ.includes(`\0${entry}`)) continue;
      if (outsideOf === undefined || procStat(name).pgrp !== outsideOf) found.push(pid);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

/** Sends SIGNAL to every process carrying the mark (but those of the group OUTSIDE_OF); how many there were. */
export function signalMarked(mark: string, signal: NodeJS.Signals, outsideOf?: number): number {
  const pids = markedPids(mark, outsideOf);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return pids.length;
}
