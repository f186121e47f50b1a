/**
 * The control socket's numbers and the one way to build a ws+unix URL to it, without the IPC's
 * schemas (ipc-protocol.ts): an editor's serve --stdio dials the service with these before zod loads,
 * and before initialize is answered: so nothing here loads what takes long to load (importing
 * node:crypto, for a hash Bun makes natively, cost about 1 ms of CPU before that answer).
 */
import { lstatSync, mkdirSync, readlinkSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** The IPC's own number: a terminal and a service speak it only when both say the same. */
export const IPC = 1;

/** The WebSocket's path on the control socket. */
export const IPC_PATH = "/v1/ipc";

/** The most a message may be, both ways (a 40 MB tool result fits). */
export const IPC_MAX_PAYLOAD = 64 * 1024 * 1024;

/** The longest unix socket path every supported system takes (macOS: 104 bytes with the NUL). */
export const MAX_SOCKET_PATH = 103;

/** Bun's ws+unix URLs take a path of these characters only (a space, é, :, ?, # break them). */
const URL_SAFE = /^[A-Za-z0-9._~+/-]+$/;

/**
 * The one function that builds a ws+unix URL: `ws+unix://<socket>:<path>`. The socket path must be
 * URL-safe ({@link connectablePath} gives one that is).
 */
export function wsUnixUrl(socketPath: string, path = IPC_PATH): string {
  if (!URL_SAFE.test(socketPath)) throw new Error(`${socketPath} cannot be put in a ws+unix URL: connect through connectablePath()`);
  return `ws+unix://${socketPath}:${path}`;
}

/**
 * A path to connect to `socketPath` by that a ws+unix URL takes and the platform's socket length
 * allows: the path itself when it is URL-safe and short enough, else a symlink to it named by a
 * hash of it, in `$XDG_RUNTIME_DIR` or `/tmp/lembas-$UID` (made mode 0700, and refused when it is
 * another user's or open to others).
 */
export function connectablePath(socketPath: string, env: NodeJS.ProcessEnv = process.env): string {
  if (URL_SAFE.test(socketPath) && Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH) return socketPath;
  const dir = linkDir(env);
  const link = join(dir, `${new Bun.CryptoHasher("sha256").update(socketPath).digest("hex").slice(0, 8)}.sock`);
  const there = lstatSync(link, { throwIfNoEntry: false });
  if (there?.isSymbolicLink() && readlinkSync(link) === socketPath) return link;
  // Made beside it and renamed over it: two terminals making it at once both end with the link.
  const fresh = `${link}.${process.pid}`;
  symlinkSync(socketPath, fresh);
  renameSync(fresh, link);
  return link;
}

function linkDir(env: NodeJS.ProcessEnv): string {
  const runtime = env.XDG_RUNTIME_DIR;
  const uid = process.getuid?.() ?? 0;
  if (runtime && URL_SAFE.test(runtime) && Buffer.byteLength(runtime) <= MAX_SOCKET_PATH - 14) return runtime;
  const dir = `/tmp/lembas-${uid}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = lstatSync(dir);
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a private directory of this user (mode 0700): remove it, or set XDG_RUNTIME_DIR`);
  }
  return dir;
}
