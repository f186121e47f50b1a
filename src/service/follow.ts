/**
 * Where a link's prompt goes when the session it names moves while the prompt waits: prompts that
 * never started where they were queued (answered "unstarted") follow the session — to the terminal
 * that shares it now (after `_lembas/ipc/take`), or to the service's own handlers once the terminal
 * that had it let go of it (quit, switched) and the service may open it from the store.
 */
import { acp } from "../rpc/agent.ts";
import { MOVE_WAIT_MS } from "./moves.ts";
import type { Forwarder, Shares } from "./shares.ts";

/** Where a request goes next: a terminal, the service's own handlers, or nowhere (its error stands). */
export type Destination = { kind: "terminal"; forward: Forwarder } | { kind: "here" } | null;

/** Whether an answer says its turn never started because the session was let go of (acp/prompt.ts). */
export function isUnstarted(error: unknown): boolean {
  const data = (error as { data?: { lembas?: { unstarted?: unknown } } } | null)?.data;
  return data?.lembas?.unstarted === true;
}

/**
 * Waits (at most MOVE_WAIT_MS once it is not moving, or until the request is cancelled) for the session to be somewhere
 * that will run the request: a terminal sharing it other than `from`; or, when it came back from a
 * terminal (`from` one), the service once that terminal left and the session is available. A
 * request that came back from the service's own handlers goes only to a terminal, and only while
 * the session moves to one.
 */
export async function destination(shares: Shares, sessionId: string, from: Forwarder | "here", signal: AbortSignal): Promise<Destination> {
  const until = Date.now() + MOVE_WAIT_MS;
  while (!signal.aborted) {
    const holder = shares.holder(sessionId);
    if (holder && holder !== from) return { kind: "terminal", forward: holder };
    // While the service finishes the running turn of a session it hands over, there is no deadline.
    const moving = shares.moves.moving(sessionId);
    if (from === "here" && !holder && !moving) return null;
    if (from !== "here" && !holder && shares.available(sessionId)) return { kind: "here" };
    if (!moving && Date.now() >= until) return null;
    await Bun.sleep(25);
  }
  return null;
}

/** The answer of a request cancelled ($/cancel_request) while it waited for its session to arrive. */
export function cancelledWhileMoving(): acp.RequestError {
  return new acp.RequestError(-32800, "the request was cancelled while its session moved");
}
