/**
 * The service's locator: where a session is held, asked by every link's handlers (acp/whereabouts.ts),
 * by the message router (router.ts: which terminal a request goes to), by the device's deletes and by
 * the idle sweep. It adds to the engine and the store what only the service knows: which of its
 * links owns a session (acp/link-owners.ts), which editor's `serve --stdio` has one open (their sessions are held
 * by the service's own pid, but are the editor's), and which terminal shares one over the IPC.
 */
import type { LinkOwners } from "../acp/link-owners.ts";
import { type FrontEnd, processLocator, type SessionLocator, type Whereabouts } from "../acp/whereabouts.ts";
import type { Engine } from "../engine/engine.ts";
import type { Db } from "../store/db.ts";
import type { Forwarder, Shares } from "./shares.ts";

export type ServiceLocatorDeps = {
  engine: Engine;
  db: Db;
  owners: LinkOwners;
  editors: { has(sessionId: string): boolean };
  shares: Shares;
};

export class ServiceLocator implements SessionLocator {
  private readonly local: SessionLocator;

  constructor(private readonly deps: ServiceLocatorDeps) {
    this.local = processLocator(deps.engine, deps.db, (id) => this.frontEnd(id));
  }

  where(sessionId: string): Whereabouts {
    return this.local.where(sessionId);
  }

  /** The front end of this service that has a session open: an editor's connection first (it is never taken over), else a link. */
  frontEnd(sessionId: string): FrontEnd | null {
    if (this.deps.editors.has(sessionId)) return "editor";
    return this.deps.owners.ownerOf(sessionId) ? "link" : null;
  }

  /** The terminal that shares a session, which the link's requests for it go to; null when none does. */
  terminal(sessionId: string): Forwarder | null {
    return this.deps.shares.holder(sessionId);
  }

  /** Whether the service may let go of a session it runs: no front end has it, no turn runs or waits, no card is open. */
  idle(sessionId: string, openCards: number): boolean {
    const session = this.deps.engine.get(sessionId);
    return session !== null && !session.busy && openCards === 0 && this.frontEnd(sessionId) === null;
  }
}
