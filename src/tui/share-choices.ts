/**
 * What the person at the terminal said about sharing, per session: shared by name (`/share`,
 * `lembas --share`: wherever it is, even outside remote.roots or untrusted) or stopped (`/unshare`:
 * not shared again on its own until `/share`). Everything else follows the automatic rule (the
 * web may open it: acp/places.ts). Only the terminal's own commands change these; nothing that
 * comes over the link or the control socket does.
 */
import type { Config } from "../config/schema.ts";
import { sessionRefusal } from "../acp/places.ts";
import type { Db } from "../store/db.ts";

/** What sharing by name says while no service runs: it goes on locally, and shares when one comes. */
export const NO_SERVICE_TO_SHARE = "no service is running: this session is shared as soon as one starts (lembas serve, or lembas service install)";

type SessionRef = { id: string; cwd: string; root: string };

export class ShareChoices {
  private readonly named = new Set<string>();
  private readonly stopped = new Set<string>();

  /** `/share` or `--share`: this session is shared by name from now on. */
  byName(sessionId: string): void {
    this.named.add(sessionId);
    this.stopped.delete(sessionId);
  }

  /** `/unshare`: this session is not shared, and not again on its own. */
  stop(sessionId: string): void {
    this.named.delete(sessionId);
    this.stopped.add(sessionId);
  }

  isByName(sessionId: string): boolean {
    return this.named.has(sessionId);
  }

  /** Whether a session is to be shared: by name, or — not stopped — one the web may open. */
  wants(session: SessionRef, config: Config, db: Db): boolean {
    if (this.named.has(session.id)) return true;
    if (this.stopped.has(session.id)) return false;
    return sessionRefusal(session, config.remote, db) === null;
  }

  /**
   * The roots a web prompt's @paths must be inside: the device's, or the project alone when the
   * session was shared by name and no roots are set (the spec's rule); undefined: the device's.
   */
  promptRoots(session: SessionRef, config: Config): readonly string[] | undefined {
    return this.named.has(session.id) && config.remote.roots.length === 0 ? [session.root] : undefined;
  }
}

/** What the status bar says of sharing: "shared · <instance>", or null when the session is not shared. */
export function sharedLine(shared: boolean, links: readonly string[]): string | null {
  if (!shared) return null;
  return links.length > 0 ? `shared · ${links.join(", ")}` : "shared · no instance linked";
}
