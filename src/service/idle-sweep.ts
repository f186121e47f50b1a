import type { CardDesk } from "../acp/cards.ts";
import type { LinkOwners } from "../acp/link-owners.ts";
import type { Engine } from "../engine/engine.ts";
import { waitMs } from "../timing.ts";
import type { ServiceLocator } from "./locator.ts";

/** How long a session a link holds may sit idle before the service lets go of it (10 min). */
const SESSION_IDLE_MS = 10 * 60_000;
/** How often the service looks for sessions to let go of. */
const SWEEP_EVERY_MS = 60_000;

export type IdleSweepDeps = { engine: Engine; owners: LinkOwners; locator: ServiceLocator; desks: Map<string, CardDesk> };

/**
 * Lets go of the sessions the service runs for nobody, so that it does not keep every session it
 * ever ran in memory: one no front end has (its link dropped), with no turn and no open card, at
 * once; one a link holds, once nothing happened in it for a while (no turn, no card, no event).
 * A terminal may then take it, and a link that names it again opens it from the store.
 */
export function idleSweep(deps: IdleSweepDeps, failed: (error: unknown) => void): () => void {
  const idleMs = waitMs("SESSION_IDLE_MS", SESSION_IDLE_MS);
  const lastActive = new Map<string, number>();
  const sweep = async () => {
    const now = Date.now();
    const live = new Set<string>();
    for (const session of deps.engine.list()) {
      live.add(session.id);
      if (!lastActive.has(session.id)) {
        // Seen from now: each of its events (a turn, a setting, a title) counts as use.
        session.bus.subscribe(() => lastActive.set(session.id, Date.now()));
        lastActive.set(session.id, now);
      }
      const open = deps.desks.get(session.id)?.open ?? 0;
      if (session.busy || open > 0) {
        lastActive.set(session.id, now);
        continue;
      }
      const linked = deps.owners.ownerOf(session.id) !== null;
      if (linked && now - (lastActive.get(session.id) ?? now) < idleMs) continue;
      // The link lets go of it first (its events stop); an editor's, or a terminal's, is never let go of here.
      if (linked) deps.owners.release(session.id);
      if (!deps.locator.idle(session.id, open)) continue;
      await deps.engine.release(session.id);
      deps.desks.delete(session.id);
      lastActive.delete(session.id);
      live.delete(session.id);
    }
    for (const id of lastActive.keys()) if (!live.has(id)) lastActive.delete(id);
  };
  const timer = setInterval(() => void sweep().catch(failed), waitMs("IDLE_SWEEP_MS", SWEEP_EVERY_MS));
  return () => clearInterval(timer);
}
