import type { Engine } from "../engine/engine.ts";
import type { Session } from "../engine/session.ts";

/**
 * A logout stops what runs on that account (lembas logout): the turns of the sessions its link
 * held, and any turn on one of its models, are cancelled as a cancel from the web would (the
 * running turn stops mid-stream and is stored cancelled, the waiting ones answer cancelled without
 * running). So no model request leaves with the removed token, and nothing runs that nobody can
 * see or stop any more.
 */
export function stopLoginTurns(engine: Engine, login: string, held: readonly string[]): void {
  const heldHere = new Set(held);
  for (const session of engine.list()) {
    if (!session.busy) continue;
    if (heldHere.has(session.id) || onLogin(session, login)) stopTurns(session);
  }
}

/** Whether a session's model is one of the login's (its refs are `<login>/<model>`, src/model/refs.ts). */
function onLogin(session: Session, login: string): boolean {
  return session.model?.split("/")[0] === login;
}

function stopTurns(session: Session): void {
  for (const turnId of session.status().queued) session.cancelTurn(turnId);
  session.cancel();
}
