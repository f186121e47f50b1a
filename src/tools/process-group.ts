/**
 * The process groups the commands of bash and its background jobs run in: each command starts a
 * new session (its own group, no controlling terminal), and stopping it signals the whole group.
 */
import { existsSync, readdirSync } from "node:fs";
import { procStat } from "./proc-stat.ts";
import { markedPids, signalMarked } from "./run-mark.ts";
import type { Plan } from "./sandbox.ts";
import type { SandboxInit } from "./sandbox-init.ts";
import { type ScriptProcess, spawnScript } from "./script-spawn.ts";

/** Between SIGTERM and SIGKILL to a command's process group. */
export const KILL_GRACE_MS = 2_000;

let shellCache: string[] | null = null;

/** `bash -c`, or `sh -c` where there is no bash; looked up once. */
function shell(): string[] {
  shellCache ??= [Bun.which("bash") ?? Bun.which("sh") ?? "/bin/sh", "-c"];
  return shellCache;
}

/**
 * A command line started in a new session, stdin closed: stdout and stderr on one pipe, which
 * keeps their order exactly (stderr stays a pipe for the shell's own errors), in the sandbox when
 * the plan has one.
 */
export function spawnCommand(command: string, opts: { cwd: string; env: Record<string, string>; plan?: Plan }): ScriptProcess {
  return spawnScript(shell(), command, { ...opts, stdin: "ignore", prelude: "exec 2>&1" });
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Whether a live process of the group is left. A zombie does not count: a sandbox's PID 1 ends as
 * an orphan, and a container's PID 1 may never reap it.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc")) return true;
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57 || entry.charCodeAt(0) < 48) continue;
    try {
      const { state, pgrp } = procStat(entry);
      if (pgrp === pgid && state !== "Z" && state !== "X") return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/**
 * Whether a live process of the group is left once the command's own processes have had SETTLE_MS
 * to end: a sandbox's PID 1 winds down for a moment after the command it ran has exited.
 */
export async function leftInGroup(pgid: number, settleMs = 100): Promise<boolean> {
  const end = Date.now() + settleMs;
  for (let wait = 5; groupAlive(pgid); wait *= 2) {
    if (Date.now() >= end) return true;
    await Bun.sleep(Math.min(wait, end - Date.now()));
  }
  return false;
}

/**
 * Whether a command that ended left processes running: in its group (leftInGroup), or carrying its
 * MARK out of it (`setsid server &`).
 */
export async function leftRunning(pgid: number, mark: string): Promise<boolean> {
  return (await leftInGroup(pgid)) || markedPids(mark, pgid).length > 0;
}

/**
 * SIGTERM to the group now, SIGKILL after the grace period (not awaited: it happens even after we
 * have returned), and the same signals to every process carrying MARK (run-mark.ts) outside the
 * group: those that left it with a session of their own. The SIGKILL goes to the marked ones still
 * there then, and to the sandbox's PID 1 (INIT), which takes every process of the sandbox with it,
 * whatever its group and mark (sandbox-init.ts).
 */
export function stopRun(pid: number, mark: string, init: Promise<SandboxInit | null>, graceMs = KILL_GRACE_MS): void {
  signalRun(pid, mark, init, "SIGTERM");
  setTimeout(() => signalRun(pid, mark, init, "SIGKILL"), graceMs).unref();
}

/**
 * One signal to a run: its group (PID), the processes carrying its MARK outside the group (none
 * looked for when MARK is null), and with SIGKILL its sandbox's PID 1 (INIT).
 */
export function signalRun(pid: number, mark: string | null, init: Promise<SandboxInit | null>, signal: NodeJS.Signals): void {
  killGroup(pid, signal);
  if (mark !== null) signalMarked(mark, signal, pid);
  if (signal === "SIGKILL") void init.then((found) => found?.kill());
}

/**
 * Whether a command that ended left processes running: in a bwrap sandbox whose PID 1 is known,
 * whether that PID 1 is still there once it had SETTLE_MS to wind down (it lives while any process
 * of the sandbox does); otherwise by its group and MARK (leftRunning).
 */
export async function leftBehind(pgid: number, mark: string, init: SandboxInit | null, settleMs = 100): Promise<boolean> {
  if (init) return !(await init.gone(settleMs));
  return leftRunning(pgid, mark);
}
