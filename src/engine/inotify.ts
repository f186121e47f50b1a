import type * as Ffi from "bun:ffi";
import { openFirstLibc } from "../libc.ts";

/** bun:ffi, loaded with the first watch: a process that runs no command (an editor's first prompt) never loads it. */
const ffi = (): typeof Ffi => require("bun:ffi") as typeof Ffi;

/**
 * One event inotify reported: the watch it came from, what happened, the entry's name in that
 * directory, and the cookie that pairs a rename's MOVED_FROM with its MOVED_TO (0 otherwise).
 */
export type WatchEvent = { wd: number; mask: number; cookie: number; name: string };

export const IN_MODIFY = 0x2;
export const IN_ATTRIB = 0x4;
export const IN_CLOSE_WRITE = 0x8;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ISDIR = 0x40000000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_EXCL_UNLINK = 0x4000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const DIR_MASK =
  IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
  IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

export const ENOENT = 2;
export const ENOMEM = 12;
export const EACCES = 13;
export const ENOTDIR = 20;
export const ENOSPC = 28;

type Libc = ReturnType<typeof openLibc>;

function openLibc(name = "libc.so.6") {
  const { dlopen, FFIType } = ffi();
  return dlopen(name, {
    inotify_init1: { args: [FFIType.i32], returns: FFIType.i32 },
    inotify_add_watch: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    inotify_rm_watch: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols;
}

let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = process.platform === "linux" ? openFirstLibc(openLibc) : null;
  return libc;
}

/**
 * Linux inotify through libc, read without blocking: the kernel queues an event while the change
 * is made, so once a command has exited, `drain()` returns everything it did, with no waiting and
 * no race (Node's and Bun's fs.watch deliver events later, on their own schedule).
 */
export class Inotify {
  private readonly buffer = new Uint8Array(64 * 1024);

  private constructor(
    private readonly lib: Libc,
    private readonly fd: number,
  ) {}

  /** Null where there is no inotify (not Linux, no libc, no instance left). */
  static open(): Inotify | null {
    const lib = loadLibc();
    if (!lib) return null;
    const fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return fd < 0 ? null : new Inotify(lib, fd);
  }

  /**
   * Watches a directory's entries (not its subdirectories'); the watch id, or minus the errno
   * (ENOSPC: the watch limit reached, EACCES, ENOENT: gone meanwhile).
   */
  add(dir: string): number {
    // A typed array passed as a pointer is kept alive for the call (a bare ptr() would not be).
    const wd = this.lib.inotify_add_watch(this.fd, Buffer.from(`${dir}\0`), DIR_MASK);
    if (wd >= 0) return wd;
    const where = this.lib.__errno_location();
    return where ? -ffi().read.i32(where, 0) : -ENOSPC;
  }

  remove(wd: number): void {
    this.lib.inotify_rm_watch(this.fd, wd);
  }

  /** Every event queued so far. */
  drain(): WatchEvent[] {
    const events: WatchEvent[] = [];
    const view = new DataView(this.buffer.buffer);
    for (;;) {
      const n = Number(this.lib.read(this.fd, this.buffer, this.buffer.length));
      if (n <= 0) return events;
      for (let at = 0; at + 16 <= n; ) {
        const wd = view.getInt32(at, true);
        const mask = view.getUint32(at + 4, true);
        const cookie = view.getUint32(at + 8, true);
        const len = view.getUint32(at + 12, true);
        const raw = this.buffer.subarray(at + 16, at + 16 + len);
        const end = raw.indexOf(0);
        events.push({ wd, mask, cookie, name: Buffer.from(end < 0 ? raw : raw.subarray(0, end)).toString() });
        at += 16 + len;
      }
    }
  }

  close(): void {
    this.lib.close(this.fd);
  }
}
