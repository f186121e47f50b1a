/**
 * What the terminal and the service say to each other over the control socket's `GET /v1/ipc`
 * WebSocket (JSON-RPC 2.0, the link's transport): the `_lembas/ipc/*` methods' shapes, and (from
 * ipc-socket.ts) the IPC number and the one way to build a ws+unix URL. Both sides import it; it
 * imports neither.
 */
import { z } from "zod";

export { connectablePath, IPC, IPC_MAX_PAYLOAD, IPC_PATH, MAX_SOCKET_PATH, wsUnixUrl } from "./ipc-socket.ts";

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
