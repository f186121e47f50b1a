import type { Session } from "../engine/session.ts";
import type { acp } from "../rpc/agent.ts";
import { CardDesk, type CardTarget, deskInteraction } from "./cards.ts";
import type { Conn, LinkSurface } from "./host.ts";
import { registerLembasMethods } from "./lembas.ts";
import { registerTerminals } from "./terminals.ts";

/**
 * What a connection to an instance has beyond plain ACP: the _lembas methods, terminals, and the
 * cards of each session through its desk. Kept apart so that `serve --stdio` never loads it.
 */
export const linkSurface: LinkSurface = {
  register(app, conn) {
    registerLembasMethods(app, conn);
    const { host } = conn;
    return registerTerminals(app, { config: host.config, bufferedAmount: host.bufferedAmount ?? (() => 0) });
  },
  attachDesk,
};

/** The session's cards go through its desk, shown on this connection while it holds the session. */
function attachDesk(conn: Conn, session: Session, cx: acp.AgentContext): () => void {
  const { host } = conn;
  const desks = host.desks;
  if (!desks) throw new Error("a link connection needs the service's desks");
  let desk = desks.get(session.id);
  if (!desk) {
    desk = new CardDesk(session.id, host.config.remote.approval_timeout * 1000);
    desks.set(session.id, desk);
  }
  session.interaction = deskInteraction(desk);
  const target: CardTarget = {
    shows: (kind) => kind === "permission" || (conn.client().lembas && conn.client().protocol >= 2),
    send: (method, params) => cx.request(method, params),
    settled: (toolCallId) => {
      if (conn.client().lembas) void cx.notify("_lembas/permission/settled", { sessionId: session.id, toolCallId }).catch(() => {});
    },
    downgrade: () => conn.downgrade(),
  };
  desk.attach(target);
  return () => desk.detach(target);
}
