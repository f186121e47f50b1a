/**
 * A mark in the environment of a command's processes, so that stopping it reaches the ones that
 * left its process group: `setsid server &` or a daemon's double fork make a session of their
 * own, and a group signal misses them (a sandbox's PID namespace holds them; without one nothing
 * did). Every process a command starts inherits the variable, unless it clears its environment on
 * purpose. Found through /proc; where there is none (macOS) only the group is reached.
 *
 * A mark names the lembas process that gave it (its PID namespace, pid and start time) before a
 * part of its own: what a lembas killed with SIGKILL left running is found by the next one
 * (stopOrphanedRuns), and the watchdog finds all of one process's at once.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { procStat } from "./proc-stat.ts";

const NAME = "LEMBAS_RUN";
/** A mark: PID namespace, pid and start time of the lembas process that gave it, then its own part. */
const MARK = /^(\d+)\.(\d+)\.(\d+)\.[0-9a-f-]+$/;

let self: { ns: string; key: string } | null = null;

/** This process as the marks it gives name it; its PID namespace alone tells how to read another's pid. */
function owner(): { ns: string; key: string } {
  if (self) return self;
  let ns = "0";
  let start = "0";
  try {
    ns = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
    start = procStat(process.pid).startTime || "0";
  } catch {
    // no /proc: nobody can look the owner up anyway
  }
  self = { ns, key: `${ns}.${process.pid}.${start}` };
  return self;
}

/** What every mark this process gives begins with, as it reads in a process's environment. */
export function ownMarkPrefix(): string {
  return `${NAME}=${owner().key}.`;
}

/** A new mark, and ENV with it. */
export function marked(env: Record<string, string>): { env: Record<string, string>; mark: string } {
  const mark = `${owner().key}.${crypto.randomUUID()}`;
  return { env: { ...env, [NAME]: mark }, mark };
}

/** Each live process of this user (this one aside) with the mark in its environment. */
function eachMarked(visit: (pid: number, name: string, mark: string) => void): void {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return;
  }
  const entry = `${NAME}=`;
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = `\0${readFileSync(`/proc/${name}/environ`, "latin1")}`;
      const at = environ.indexOf(`\0${entry}`);
      if (at === -1) continue;
      const end = environ.indexOf("\0", at + 1);
      visit(pid, name, environ.slice(at + 1 + entry.length, end === -1 ? undefined : end));
    } catch {
      // gone meanwhile, or another user's
    }
  }
}

/**
 * The live processes (of this user) carrying the mark, this process aside; those of the process
 * group OUTSIDE_OF left out (signalled as a group already: a second SIGTERM may cut a shutdown short).
 */
export function markedPids(mark: string, outsideOf?: number): number[] {
  const found: number[] = [];
  eachMarked((pid, name, its) => {
    if (its !== mark) return;
    if (outsideOf === undefined || procStat(name).pgrp !== outsideOf) found.push(pid);
  });
  return found;
}

/** Sends SIGNAL to every process carrying the mark (but those of the group OUTSIDE_OF); how many there were. */
export function signalMarked(mark: string, signal: NodeJS.Signals, outsideOf?: number): number {
  const pids = markedPids(mark, outsideOf);
  for (const pid of pids) signalQuietly(pid, signal);
  return pids.length;
}

/**
 * The processes of this user whose mark names a lembas process that is gone (killed with SIGKILL,
 * its watchdog too), each with that lembas's pid. Only marks given in this PID namespace are read:
 * another's pids are not this one's.
 */
export function orphanedRuns(): { pid: number; owner: number }[] {
  const { ns } = owner();
  const found: { pid: number; owner: number }[] = [];
  const living = new Map<string, boolean>();
  eachMarked((pid, _name, mark) => {
    const parts = MARK.exec(mark);
    if (!parts || parts[1] !== ns) return;
    const key = `${parts[2]}.${parts[3]}`;
    const alive = living.get(key) ?? ownerAlive(Number(parts[2]), parts[3] ?? "");
    living.set(key, alive);
    if (!alive) found.push({ pid, owner: Number(parts[2]) });
  });
  return found;
}

/**
 * Stops what lembas processes that are gone left running (orphanedRuns): SIGTERM now, SIGKILL
 * after GRACE_MS to those still there. Returns the gone processes' pids and how many were stopped.
 */
export function stopOrphanedRuns(graceMs: number): { owners: number[]; stopped: number } {
  const found = orphanedRuns();
  if (found.length === 0) return { owners: [], stopped: 0 };
  for (const { pid } of found) signalQuietly(pid, "SIGTERM");
  setTimeout(() => {
    for (const { pid } of orphanedRuns()) signalQuietly(pid, "SIGKILL");
  }, graceMs).unref();
  return { owners: [...new Set(found.map((f) => f.owner))], stopped: found.length };
}

function ownerAlive(pid: number, startTime: string): boolean {
  try {
    const stat = procStat(pid);
    return stat.startTime === startTime && stat.state !== "Z" && stat.state !== "X";
  } catch {
    return false;
  }
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}
