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
 * Each request and notification forwarded carries the link's login (share-login.ts): the terminal
 * serves every link over one connection, and uses it where the service uses its link's own.
 *
 * The relayed events (shares.ts) and the routed answers go out through the one writer here, so a
 * turn's events reach the link before its answer, as the terminal sent them.
 *
 * A prompt that never started where it was queued, because its session moved (to a terminal that
 * took it, or back to the service from a terminal that quit), follows the session (follow.ts); a
 * terminal that stops answering fails what waits on it after a bound (answering.ts).
 */
import { acp } from "../rpc/agent.ts";
import type { LinkRelay } from "../link/dialer.ts";
import type { AnyMessage, Stream } from "../rpc/stream.ts";
import { answerBoundMs, PROBE_METHOD, whileAnswering } from "./answering.ts";
import { cancelledWhileMoving, destination, isUnstarted } from "./follow.ts";
import { withLogin } from "../app/share-login.ts";
import type { Outlet } from "./outlet.ts";
import type { Forwarder, Shares } from "./shares.ts";
import type { ServiceLocator } from "./locator.ts";

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

/** The relay the service hands each link's dialer: its stream routed (routeLink), its outlet given to the shares once the client said initialize. */
export function linkRelay(shares: Shares, locator: Pick<ServiceLocator, "terminal">): LinkRelay {
  return {
    route(stream, login) {
      const routed = routeLink(stream, shares, locator, login);
      return { stream: routed.stream, attach: (protocol) => shares.link({ ...routed.outlet, protocol }) };
    },
  };
}

/**
 * Wraps one link's stream: the returned stream is what the service's handlers are served on, and
 * the outlet is how shares.ts sends on the same link.
 */
export function routeLink(stream: Stream, shares: Shares, locator: Pick<ServiceLocator, "terminal">, login: string): { stream: Stream; outlet: Outlet } {
  const writer = stream.writable.getWriter();
  const send = (message: AnyMessage) => void writer.write(message).catch(() => {});
  const inflight = new Map<Id, AbortController>();
  /** The prompts given to the service's own handlers, kept until answered: one that never started follows its session. */
  const here = new Map<Id, Record<string, unknown>>();
  /** Requests that followed their session once already: a second "unstarted" is their answer. */
  const followed = new Set<Id>();
  const boundMs = answerBoundMs();
  let handlers: TransformStreamDefaultController<AnyMessage> | null = null;
  const fail = (id: Id, error: unknown) => send({ jsonrpc: "2.0", id, error: asRpcError(error) } as AnyMessage);

  /** Sends a request to a terminal, or (`"here"`) to the service's own handlers, which write its answer. */
  const route = (message: Record<string, unknown>, to: Forwarder | "here", controller: AbortController) => {
    const id = message.id as Id;
    if (to === "here") {
      if (message.method === "session/prompt") here.set(id, message);
      handlers?.enqueue(message as unknown as AnyMessage);
      return;
    }
    inflight.set(id, controller);
    const done = () => {
      if (inflight.get(id) === controller) inflight.delete(id);
    };
    whileAnswering(to.request(message.method as string, withLogin(message.params, login), controller.signal), () => to.request(PROBE_METHOD, {}), boundMs).then(
      (result) => {
        done();
        send({ jsonrpc: "2.0", id, result: result ?? null } as AnyMessage);
      },
      (error: unknown) => {
        done();
        if (isUnstarted(error) && !followed.has(id)) return void relocate(message, to, controller, error, true);
        fail(id, error);
      },
    );
  };

  /**
   * A request whose session is on its way elsewhere: sent on once it arrives, else answered with
   * `error` — or, one held while its session moved (`once` false: it never started anywhere), given
   * to the service's handlers when the move came to nothing.
   */
  const relocate = async (message: Record<string, unknown>, from: Forwarder | "here", controller: AbortController, error: unknown, once: boolean) => {
    const id = message.id as Id;
    if (once) followed.add(id);
    inflight.set(id, controller);
    const next = await destination(shares, (message.params as { sessionId: string }).sessionId, from, controller.signal);
    if (inflight.get(id) === controller) inflight.delete(id);
    if (controller.signal.aborted) return fail(id, cancelledWhileMoving());
    if (next?.kind === "terminal") return route(message, next.forward, controller);
    if (next?.kind === "here" || !once) return route(message, "here", controller);
    fail(id, error);
  };

  const forward = (message: Record<string, unknown>): boolean => {
    const method = message.method;
    // An answer to a shared session's card (share-cards.ts) is the service's, not the handlers'.
    if (typeof method !== "string") return shares.cards.answered(message);
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
    const holder = locator.terminal(sessionId);
    if (!holder) {
      if (id === undefined || id === null || !FORWARDED_REQUESTS.has(method)) return false;
      // Moving to a terminal: held until the terminal shares it, rather than opened here again.
      if (shares.moves.moving(sessionId)) {
        void relocate(message, "here", new AbortController(), null, false);
        return true;
      }
      if (method === "session/prompt") here.set(id, message);
      return false;
    }
    if (id === undefined || id === null) {
      if (!FORWARDED_NOTIFICATIONS.has(method)) return false;
      holder.notify(method, withLogin(params, login));
      return true;
    }
    if (!FORWARDED_REQUESTS.has(method)) return false;
    route(message, holder, new AbortController());
    return true;
  };

  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      start(controller) {
        handlers = controller;
      },
      transform(message, controller) {
        if (!forward(message as unknown as Record<string, unknown>)) controller.enqueue(message);
      },
    }),
  );
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      const { id, error, method } = message as unknown as { id?: Id; error?: unknown; method?: unknown };
      const asked = id === undefined || method !== undefined ? undefined : here.get(id);
      if (asked && id !== undefined) {
        here.delete(id);
        // A prompt the service let go of before it started (its session moved to a terminal): it follows.
        if (isUnstarted(error) && !followed.has(id)) return void relocate(asked, "here", new AbortController(), error, true);
      }
      return writer.write(message);
    },
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
