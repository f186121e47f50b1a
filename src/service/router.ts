/**
 * Routes a link's requests for a session a terminal shares to that terminal. It sits between the
 * link's transport and the service's own ACP handlers (acp/server.ts): a request or notification
 * naming a shared session, of a method the terminal serves, is taken out of the stream and
 * forwarded over the terminal's IPC connection; its answer is written back on the link with the
 * request's own id. Everything else goes on to the handlers as before.
 *
 * Status and history are not forwarded: the service answers them from the store (the terminal's
 * hold says `held: "terminal"`), as the design has it.
 *
 * The relayed events (shares.ts) and the routed answers go out through the one writer here, so a
 * turn's events reach the link before its answer, as the terminal sent them.
 */
import { acp } from "../rpc/agent.ts";
import type { AnyMessage, Stream } from "../rpc/stream.ts";
import type { Outlet, Shares } from "./shares.ts";

/** The link's requests the terminal that shares the session serves. */
export const FORWARDED_REQUESTS: ReadonlySet<string> = new Set([
  "session/prompt",
  "session/set_mode",
  "_lembas/steer",
  "_lembas/configure",
  "_lembas/commands",
  "_lembas/files/search",
  "_lembas/session/compact",
  "_lembas/session/title",
  // The terminal stops it and starts a new session (the spec's "a terminal that has it open starts a new one").
  "_lembas/session/delete",
]);

/** The link's notifications for a shared session the terminal gets. */
export const FORWARDED_NOTIFICATIONS: ReadonlySet<string> = new Set(["session/cancel"]);

type Id = string | number;

/**
 * Wraps one link's stream: the returned stream is what the service's handlers are served on, and
 * the outlet is how shares.ts sends on the same link.
 */
export function routeLink(stream: Stream, shares: Shares, login: string): { stream: Stream; outlet: Outlet } {
  const writer = stream.writable.getWriter();
  const send = (message: AnyMessage) => void writer.write(message).catch(() => {});
  const inflight = new Map<Id, AbortController>();

  const forward = (message: Record<string, unknown>): boolean => {
    const method = message.method;
    if (typeof method !== "string") return false;
    const params = message.params as Record<string, unknown> | undefined;
    const id = message.id as Id | undefined;
    if (method === "$/cancel_request") {
      const requestId = params?.requestId as Id | undefined;
      const controller = requestId === undefined ? undefined : inflight.get(requestId);
      if (!controller) return false;
      controller.abort();
      return true;
    }
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return false;
    const holder = shares.holder(sessionId);
    if (!holder) return false;
    if (id === undefined || id === null) {
      if (!FORWARDED_NOTIFICATIONS.has(method)) return false;
      holder.notify(method, params);
      return true;
    }
    if (!FORWARDED_REQUESTS.has(method)) return false;
    const controller = new AbortController();
    inflight.set(id, controller);
    holder
      .request(method, params, controller.signal)
      .then(
        (result) => send({ jsonrpc: "2.0", id, result: result ?? null } as AnyMessage),
        (error: unknown) => send({ jsonrpc: "2.0", id, error: asRpcError(error) } as AnyMessage),
      )
      .finally(() => inflight.delete(id));
    return true;
  };

  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        if (!forward(message as unknown as Record<string, unknown>)) controller.enqueue(message);
      },
    }),
  );
  const writable = new WritableStream<AnyMessage>({
    write: (message) => writer.write(message),
    close: () => writer.close(),
  });
  return { stream: { readable, writable }, outlet: { login, send } };
}

function asRpcError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof acp.RequestError) return { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) };
  const e = error as { code?: unknown; message?: unknown } | null;
  if (e && typeof e.code === "number" && typeof e.message === "string") return { code: e.code, message: e.message };
  return { code: -32603, message: "the terminal that shares this session went away before it answered: send it again" };
}
