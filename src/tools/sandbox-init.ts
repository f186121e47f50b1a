/**
 * A bwrap sandbox's PID 1 (bwrap's init), known for certain: killing it kills every process of
 * the sandbox's PID namespace, whatever their groups and environments say. A command runs as the
 * same user as its PID 1 and may trace it (move it to a session of its own, clear the mark in its
 * environment), so neither the group nor the mark can find it; its pid can.
 *
 * bwrap writes the pid on `--info-fd` right after it made the namespace, and its PID 1 waits on
 * `--block-fd` before it starts the command: while it waits it is alive, so the pidfd taken then
 * is its own (no pid reuse race), and the command, which alone could touch it, has not started.
 * The wait costs nothing as a rule: the pid comes before bwrap's mounts, the go-ahead is sent
 * while they are made.
 */
import type * as Ffi from "bun:ffi";
import { closeSync, writeSync } from "node:fs";
import { z } from "zod";
import { openFirstLibc } from "../libc.ts";
import { procStat } from "./proc-stat.ts";

/** bun:ffi, loaded with the first sandboxed command (a process that runs none never loads it). */
const ffi = (): typeof Ffi => require("bun:ffi") as typeof Ffi;

/** Where bwrap writes its PID 1's pid, and where that PID 1 waits for the go-ahead (sandbox.ts `Wrapped`). */
export const INFO_FD = 4;
export const BLOCK_FD = 5;

/** The same numbers on every architecture (system calls from 424 on are shared). */
const SYS_PIDFD_SEND_SIGNAL = 424;
const SYS_PIDFD_OPEN = 434;
const SIGKILL = 9;
const POLLIN = 1;

function openLibc(name: string) {
  const { dlopen, FFIType } = ffi();
  return dlopen(name, {
    syscall: { args: [FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64, FFIType.i64], returns: FFIType.i64_fast },
    poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
  }).symbols;
}

let libc: ReturnType<typeof openLibc> | null | undefined;

function loadLibc(): ReturnType<typeof openLibc> | null {
  if (libc !== undefined) return libc;
  libc = process.platform === "linux" ? openFirstLibc(openLibc) : null;
  return libc;
}

const infoSchema = () => z.object({ "child-pid": z.number().int().positive() });

/** A sandbox's PID 1, held by a pidfd. */
export class SandboxInit {
  private fd: number;

  constructor(
    readonly pid: number,
    /** Its start time (/proc stat), which tells it from a later process given the same pid (the watchdog has no pidfd). */
    readonly startTime: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /** Whether it has ended, the sandbox with it (a closed handle counts as ended). */
  get ended(): boolean {
    const lib = loadLibc();
    if (this.fd < 0 || !lib) return true;
    const entry = new Int32Array([this.fd, POLLIN]);
    if (lib.poll(entry, 1, 0) < 0) return false;
    return ((entry[1] ?? 0) >>> 16) !== 0;
  }

  /** Whether it ends within MS: it winds down for a moment after the sandbox's last process. */
  async gone(ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    for (let wait = 1; !this.ended; wait *= 2) {
      if (Date.now() >= end) return false;
      await Bun.sleep(Math.min(wait, end - Date.now()));
    }
    return true;
  }

  /** SIGKILL to it, and so to every process of the sandbox. */
  kill(): void {
    if (this.fd < 0) return;
    loadLibc()?.syscall(SYS_PIDFD_SEND_SIGNAL, this.fd, SIGKILL, 0, 0);
  }

  close(): void {
    if (this.fd < 0) return;
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
    this.fd = -1;
  }
}

/**
 * Reads bwrap's PID 1 from INFO (to its end), takes a pidfd of it, then lets it start the command
 * (a byte on BLOCK); both fds closed. BWRAP: the pid of the bwrap we started, PID 1's parent. Null
 * when it cannot be known (bwrap failed before it, a kernel without pidfd_open): the command then
 * starts all the same, found by its group and mark.
 */
export async function takeInit(info: number, block: number, bwrap: number): Promise<SandboxInit | null> {
  try {
    return known(await new Response(Bun.file(info).stream()).text(), bwrap);
  } catch {
    return null;
  } finally {
    try {
      writeSync(block, "\n");
    } catch {
      // bwrap is gone already
    }
    closeQuietly(info);
    closeQuietly(block);
  }
}

function known(info: string, bwrap: number): SandboxInit | null {
  const lib = loadLibc();
  if (!lib || info === "") return null;
  const pid = infoSchema().parse(JSON.parse(info))["child-pid"];
  const fd = lib.syscall(SYS_PIDFD_OPEN, pid, 0, 0, 0);
  if (typeof fd !== "number" || fd < 0) return null;
  try {
    // It waits for us, unless its setup failed and it is gone already (its pid then another's).
    const stat = procStat(pid);
    if (stat.ppid === bwrap) return new SandboxInit(pid, stat.startTime, fd);
  } catch {
    // gone
  }
  closeQuietly(fd);
  return null;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
}
