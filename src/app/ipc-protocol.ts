/**
 * What the terminal and the service say to each other over the control socket's `GET /v1/ipc`
 * WebSocket (JSON-RPC 2.0, the link's transport): the `_lembas/ipc/*` methods' shapes, the IPC
 * number, and the one way to build a ws+unix URL. Both sides import it; it imports neither.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readlinkSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** The IPC's own number: a terminal and a service speak it only when both say the same. */
export const IPC = 1;

/** The WebSocket's path on the control socket. */
export const IPC_PATH = "/v1/ipc";

/** The most a message may be, both ways (a 40 MB tool result fits). */
export const IPC_MAX_PAYLOAD = 64 * 1024 * 1024;

/** `_lembas/ipc/hello`, the terminal's first request. */
export const HelloParams = z.object({
  ipc: z.number().int(),
  version: z.string().min(1),
  pid: z.number().int().positive(),
  /** The terminal's row in the store's procs table, once there is one. */
  procId: z.string().min(1).optional(),
});
export type HelloParams = z.infer<typeof HelloParams>;

/** The service's answer to a hello it accepts. */
export const HelloResult = z.object({
  ipc: z.number().int(),
  version: z.string(),
  pid: z.number().int(),
  /** The logins (instances) whose links are up now: a shared session is announced on these. */
  links: z.array(z.string()).default([]),
});
export type HelloResult = z.infer<typeof HelloResult>;

/** `_lembas/ipc/links`, service → terminal: the logins whose links are up, each time that changes. */
export const LinksParams = z.object({ links: z.array(z.string()) });
export type LinksParams = z.infer<typeof LinksParams>;

/**
 * `_lembas/ipc/share`: the terminal shares its session (inside remote.roots, trusted where
 * required, or any by name). Sent again after each hello, and when what it says changed.
 */
export const ShareParams = z.object({
  sessionId: z.string().min(1),
  cwd: z.string().min(1),
  title: z.string(),
  model: z.string().nullable(),
  /** The model's connection (a login's name when the model is an instance's), or null. */
  connection: z.string().nullable().default(null),
  mode: z.string(),
  effort: z.string(),
  busy: z.boolean(),
  /**
   * The person at the terminal asked for this session to be shared (`/share`, `lembas --share`):
   * the service then checks only that it exists and that the terminal holds it, not the roots.
   * Only a terminal says it, over the owner-only control socket; nothing from a link reaches it.
   */
  byName: z.boolean().default(false),
});
export type ShareParams = z.infer<typeof ShareParams>;

/** `_lembas/ipc/leave`: the terminal let go of the session (switched, quit), its hold released first. */
export const LeaveParams = z.object({ sessionId: z.string().min(1) });
export type LeaveParams = z.infer<typeof LeaveParams>;

/**
 * `_lembas/ipc/take`: the terminal is about to open a session the service holds (`lembas -r ID`).
 * The service lets its running turn finish, lets go of it and answers; the terminal then holds it.
 */
export const TakeParams = z.object({ sessionId: z.string().min(1) });
export type TakeParams = z.infer<typeof TakeParams>;

/**
 * `_lembas/ipc/deleted` (a notification): the terminal deleted a session itself — its /delete, a
 * web delete forwarded to it, the empty session it discarded — and kept the deletes in the outbox.
 */
export const DeletedParams = z.object({ sessionId: z.string().min(1) });
export type DeletedParams = z.infer<typeof DeletedParams>;

/** `POST /v1/delete`'s body on the control socket: a terminal or a shell asks the service to delete a session. */
export const DeleteRequest = z.object({ sessionId: z.string().min(1) });

/** What the service answers it: done (false: there was no such session), or why it cannot, a sentence. */
export const DeleteAnswer = z.union([z.object({ deleted: z.boolean() }), z.object({ refused: z.string() })]);
export type DeleteAnswer = z.infer<typeof DeleteAnswer>;

/** The JSON-RPC error code of a hello from a terminal the service does not speak with (and of anything sent after it). */
export const IPC_MISMATCH = -32010;

/** What a terminal of another version (or IPC number) hears, and shows. */
export function mismatchSentence(serviceVersion: string): string {
  return `the service runs lembas ${serviceVersion}: restart it (lembas service install, or stop and start lembas serve) to share this terminal's sessions`;
}

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
  const link = join(dir, `${createHash("sha256").update(socketPath).digest("hex").slice(0, 8)}.sock`);
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
