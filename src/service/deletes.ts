/**
 * Deletes the device asks of its service (`POST /v1/delete` on the control socket, from the
 * terminal's /delete and /sessions delete and from `lembas sessions delete|prune`), done wherever
 * the session is held: one the service runs is stopped and deleted here; one a terminal shares is
 * forwarded to that terminal (which stops it and starts a new session); one nobody holds is
 * deleted here. A live holder the service cannot reach (a terminal not connected, `lembas run`,
 * an editor's `serve --stdio`) is refused with what the person can do.
 *
 * Every client the session may have a chat for is told `_lembas/session/deleted` through the
 * outbox (store/deletes.ts): written first, then sent on the links that are up now, and forgotten
 * once each instance proved it has it (link/kept-deletes.ts); a link that is down hears it after
 * its next initialize.
 */
import type { CardDesk } from "../acp/cards.ts";
import type { LinkOwners } from "../acp/link-owners.ts";
import type { Engine } from "../engine/engine.ts";
import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { inEditorSentence } from "../acp/whereabouts.ts";
import { heldElsewhereSentence } from "../store/placement.ts";
import { getSession } from "../store/sessions.ts";
import { deleteHere } from "../app/device-delete.ts";
import { DeleteAnswer } from "../app/ipc-protocol.ts";
import type { Shares } from "./shares.ts";
import type { ServiceLocator } from "./locator.ts";

export type ServiceDeletesDeps = {
  engine: Engine;
  db: Db;
  owners: LinkOwners;
  desks: Map<string, CardDesk>;
  shares: Shares;
  locator: ServiceLocator;
  /** Sends the outbox on every link that is up now. */
  sendKept(): void;
  log(line: string): void;
};

export class ServiceDeletes {
  constructor(private readonly deps: ServiceDeletesDeps) {}

  /** Deletes a session wherever it is held on this device. */
  async delete(sessionId: string): Promise<DeleteAnswer> {
    const { engine, db, shares, locator } = this.deps;
    if (!getSession(db, sessionId)) return { deleted: false };
    const terminal = locator.terminal(sessionId);
    if (terminal) {
      // The terminal stops it, starts a new session on its screen, and keeps the deletes itself.
      const answer = DeleteAnswer.safeParse(await terminal.request("_lembas/session/delete", { sessionId }).catch((error: unknown) => ({ refused: `the terminal that shares session ${sessionId} could not delete it: ${errorMessage(error)}` })));
      this.deps.sendKept();
      return answer.success ? answer.data : { refused: `the terminal that shares session ${sessionId} answered the delete with something else` };
    }
    const where = locator.where(sessionId);
    if (where.at === "absent") return { deleted: false };
    if (where.at === "elsewhere") return { refused: `${heldElsewhereSentence(where.hold)}, which the service cannot reach: delete it there, or quit it and delete again` };
    // An editor's session runs in this engine but is the editor's: deleting it would pull it from under the editor.
    if (where.at === "here" && where.by === "editor") return { refused: `${inEditorSentence(sessionId)}: close it there (or end its serve --stdio) and delete again` };
    let deleted: boolean;
    try {
      deleted = await deleteHere(engine, db, sessionId);
    } catch (error) {
      return { refused: `session ${sessionId} could not be deleted: ${errorMessage(error)}` };
    }
    this.deps.owners.release(sessionId);
    this.deps.desks.delete(sessionId);
    shares.forget(sessionId);
    this.deps.log(`session ${sessionId} deleted at the device's request`);
    this.deps.sendKept();
    return { deleted };
  }

  /**
   * A terminal deleted a session itself (its own /delete, the empty one it discarded) and kept the
   * deletes: its share ends without a left, and the links are told now.
   */
  told(owner: object, sessionId: string): void {
    this.deps.shares.forget(sessionId, owner);
    this.deps.sendKept();
  }
}
