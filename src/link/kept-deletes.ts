import type { Db } from "../store/db.ts";
import { forgetDelete, pendingDeletes } from "../store/deletes.ts";

/** What sends the deletes: the link's socket (for the ping that proves they arrived) and a notifier. */
export type KeptDeletesLink = {
  ws: WebSocket;
  db: Db;
  login: string;
  /** Writes `_lembas/session/deleted`; resolves once it is handed to the socket. */
  notify(sessionId: string): Promise<void>;
};

/**
 * Tells a link's client the deletes kept for its login. A written frame may still be lost with a
 * socket that has died unnoticed, so a delete is forgotten only when the instance answers a ping
 * sent after it (pongs come back in order behind what was sent before them); until then it stays
 * kept and the next link sends it again (the client ignores a second one).
 */
export function keptDeletes(link: KeptDeletesLink): { send(): void; proven(timeoutMs: number): Promise<void>; stop(): void } {
  const { ws, db, login } = link;
  /** Sent on this link and not yet proven: not sent twice on it. */
  const inFlight = new Set<string>();
  /** ping payload → the deletes written before that ping. */
  const unproven = new Map<string, string[]>();
  let pings = 0;
  let wake: (() => void) | null = null;

  const onPong = (event: Event) => {
    const batch = unproven.get(pongText(event));
    if (!batch) return;
    unproven.delete(pongText(event));
    try {
      for (const sessionId of batch) forgetDelete(db, sessionId, login);
    } catch {
      // the store will not take the write (a full disk): still kept, told again at the next link
    }
    if (unproven.size === 0) wake?.();
  };
  ws.addEventListener("pong", onPong);

  const send = async () => {
    const batch = pendingDeletes(db, login).filter((id) => !inFlight.has(id));
    if (batch.length === 0) return;
    for (const id of batch) inFlight.add(id);
    const written = await Promise.allSettled(batch.map((id) => link.notify(id)));
    const sent = batch.filter((_, i) => written[i]?.status === "fulfilled");
    if (ws.readyState !== WebSocket.OPEN || sent.length === 0) return;
    const payload = `lembas-deletes-${++pings}`;
    unproven.set(payload, sent);
    ws.ping(payload);
  };

  return {
    send: () => void send().catch(() => {
      // the store could not be read: the next round tries again
    }),
    /** Waits (at most timeoutMs) for the instance to answer the pings behind the deletes sent. */
    proven: async (timeoutMs) => {
      if (unproven.size === 0 || ws.readyState !== WebSocket.OPEN) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        wake = () => (clearTimeout(timer), resolve());
      });
    },
    stop: () => ws.removeEventListener("pong", onPong),
  };
}

function pongText(event: Event): string {
  const data: unknown = "data" in event ? event.data : undefined;
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return new TextDecoder().decode(data);
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(data));
  return "";
}
