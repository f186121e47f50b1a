/**
 * The service's side of a session moving to a terminal (`lembas -r ID` of a session the web
 * opened here): the running turn is let finish (its events still reach the links), the session's
 * engine is closed and its hold released, and the link lets go of it. The turns waiting behind the
 * running one never start here: they answer unstarted, and the router (router.ts) sends them on to the
 * terminal once it shares the session.
 */
import type { LinkOwners } from "../acp/link-owners.ts";
import type { CardDesk } from "../acp/cards.ts";
import { inEditorSentence } from "../acp/whereabouts.ts";
import type { Engine } from "../engine/engine.ts";
import { errorMessage } from "../errors.ts";
import { acp } from "../rpc/agent.ts";
import type { Moves } from "./moves.ts";
import type { ServiceLocator } from "./locator.ts";

export type HandoverDeps = { engine: Engine; owners: LinkOwners; desks: Map<string, CardDesk>; moves: Moves; locator: Pick<ServiceLocator, "where">; log(line: string): void };

/**
 * Lets go of a session for a terminal that takes it; resolves once its hold is released. `waiting`
 * says whether the terminal still waits for it (it may quit meanwhile: then nothing moves).
 */
export async function handOver(deps: HandoverDeps, sessionId: string, waiting: () => boolean): Promise<void> {
  const { engine, owners, desks, moves, locator, log } = deps;
  const where = locator.where(sessionId);
  if (where.at !== "here") return;
  // An editor's session runs in this engine but is the editor's: it is not handed to anyone else.
  if (where.by === "editor") throw new acp.RequestError(-32602, `${inEditorSentence(sessionId)}: close it there first`);
  moves.begin(sessionId);
  log(`session ${sessionId} moves to a terminal: its running turn finishes first`);
  try {
    await engine.release(sessionId, { finish: true });
  } catch (error) {
    moves.end(sessionId);
    throw new acp.RequestError(-32603, `session ${sessionId} could not be let go of: ${errorMessage(error)}`);
  }
  owners.release(sessionId);
  desks.delete(sessionId);
  if (!waiting()) {
    moves.end(sessionId);
    log(`session ${sessionId} let go of: the terminal that asked for it quit meanwhile`);
    return;
  }
  moves.handed(sessionId);
  log(`session ${sessionId} handed to a terminal`);
}
