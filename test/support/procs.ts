/**
 * Finding from outside what a command left running: a `sleep` with an argument nobody else uses
 * (a sandbox gives its processes pids of their own, its command line stays), looked up in /proc.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A `sleep` argument nobody else uses, long enough to outlive the test. */
export function uniqueSleep(): string {
  return `${900 + Math.floor(Math.random() * 99)}.${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

/** Alive and not a zombie (a container's PID 1 may never reap the orphans it inherits). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** The live processes that are `sleep MARKER`. */
export function sleepsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${marker}\0` && alive(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Whether CHECK holds within MS (polled). */
export async function waitUntil(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

/** Kills what a failed test left (the sleeps it looked for), so that it does not outlive the run. */
export function killSleeps(...markers: string[]): void {
  for (const pid of markers.flatMap(sleepsWith)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** A PATH whose bwrap cannot start a sandbox: lembas then runs commands without one, as where there is none. */
export function pathWithoutSandbox(dir: string): string {
  const bin = join(dir, "no-sandbox-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  chmodSync(join(bin, "bwrap"), 0o755);
  return `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`;
}
