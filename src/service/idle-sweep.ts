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
  let collectAgain = false;
  const sweep = async () => {
    const now = Date.now();
    const live = new Set<string>();
    let released = 0;
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
      released++;
    }
    for (const id of lastActive.keys()) if (!live.has(id)) lastActive.delete(id);
    // The service is idle by then, and nothing else would collect soon: what the sessions held is given back now,
    // and at the next sweep what their last promises held (1,000 sessions let go of: 95 → 80 MB; without it, the
    // service stayed above 90 MB until its next burst of work).
    if (released > 0 || collectAgain) Bun.gc(true);
    collectAgain = released > 0;
  };
  // One sweep at a time: a release that takes longer than the interval is not begun again by the next.
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void sweep()
      .catch(failed)
      .finally(() => (sweeping = false));
  }, waitMs("IDLE_SWEEP_MS", SWEEP_EVERY_MS));
  return () => clearInterval(timer);
}
