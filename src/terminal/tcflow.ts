import { dlopen, FFIType } from "bun:ffi";
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { openFirstLibc } from "../libc.ts";

/**
 * Stopping a PTY child's output from outside its session: `tcflow(TCOOFF)` on the terminal's
 * slave side, a small `bun:ffi` call (Bun's PTY has no such method). An XOFF byte written to the
 * master is acted on only when the kernel's line-discipline worker gets to it (measured 0.03–30 MB
 * late, the most on a loaded machine); TCOOFF stops the tty at once, whatever the child's modes
 * (raw mode included), and neither a typed key (IXANY) nor a typed ^Q undoes it.
 */

/** A handle on one terminal's slave side. */
export type TtyFlow = {
  /** Suspends the terminal's output; false when the call failed. */
  stop(): boolean;
  /** Resumes it; false when the call failed. */
  start(): boolean;
  /** Lets go of the slave side (call once the child is gone). */
  close(): void;
};

const ACTIONS = process.platform === "darwin" ? { off: 1, on: 2 } : { off: 0, on: 1 };

type Tcflow = (fd: number, action: number) => number;
let tcflowFn: Tcflow | null | undefined;

/** libc's tcflow, loaded once; null where no libc could be opened. */
function loadTcflow(): Tcflow | null {
  if (tcflowFn !== undefined) return tcflowFn;
  const lib = openFirstLibc((name) => dlopen(name, { tcflow: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } }));
  tcflowFn = lib ? (fd, action) => lib.symbols.tcflow(fd, action) : null;
  return tcflowFn;
}

/**
 * Opens the slave side of the controlling terminal of `pid` (a child of ours, alive) for flow
 * control; null where that cannot be done (no libc to call, the terminal not found).
 */
export function openTtyFlow(pid: number): TtyFlow | null {
  const tcflow = loadTcflow();
  if (!tcflow) return null;
  const fd = openControllingTty(pid);
  if (fd === null) return null;
  let open = true;
  return {
    stop: () => open && tcflow(fd, ACTIONS.off) === 0,
    start: () => open && tcflow(fd, ACTIONS.on) === 0,
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** An fd on the controlling terminal of `pid`, opened without making it ours; null when not found. */
function openControllingTty(pid: number): number | null {
  const found = process.platform === "linux" ? linuxTty(pid) : psTty(pid);
  if (!found) return null;
  try {
    const fd = openSync(found.path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    if (found.rdev === null || fstatSync(fd).rdev === found.rdev) return fd;
    closeSync(fd);
  } catch {
    // Gone, or not ours to open.
  }
  return null;
}

/** From /proc/<pid>/stat's tty_nr (field 7): the pts number is its minor. */
function linuxTty(pid: number): { path: string; rdev: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ttyNr = Number(fields[4]);
    const major = (ttyNr >> 8) & 0xfff;
    const minor = (ttyNr & 0xff) | ((ttyNr >> 12) & 0xfff00);
    if (!Number.isInteger(ttyNr) || ttyNr === 0 || major < 136 || major > 143) return null;
    return { path: `/dev/pts/${(major - 136) * 256 + minor}`, rdev: ttyNr };
  } catch {
    return null;
  }
}

/** Elsewhere (macOS): `ps -o tty=` names the terminal ("ttys003"). */
function psTty(pid: number): { path: string; rdev: null } | null {
  const out = Bun.spawnSync(["ps", "-o", "tty=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
  const name = out.stdout.toString().trim();
  if (!out.success || !/^[\w/]+$/.test(name) || name === "??") return null;
  return { path: `/dev/${name}`, rdev: null };
}
