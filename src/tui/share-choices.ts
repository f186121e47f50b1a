/**
 * What the person at the terminal said about sharing, per session: shared by name (`/share`,
 * `lembas --share`: wherever it is, even outside remote.roots or untrusted) or stopped (`/unshare`:
 * not shared again on its own until `/share`). Everything else follows the automatic rule (the
 * web may open it: acp/places.ts). Kept in the store with the session, so that `lembas -r` does
 * what was said. Only the terminal's own commands change these; nothing that comes over the link
 * or the control socket does.
 */
import type { Config } from "../config/schema.ts";
import { sessionRefusal } from "../acp/places.ts";
import type { Db } from "../store/db.ts";
import { getShareChoice, type ShareChoice, setShareChoice } from "../store/share-choices.ts";

/** What sharing by name says while no service runs: it goes on locally, and shares when one comes. */
export const NO_SERVICE_TO_SHARE = "no service is running: this session is shared as soon as one starts (lembas serve, or lembas service install)";

type SessionRef = { id: string; cwd: string; root: string };

export class ShareChoices {
  /** What was said here, and what was read from the store: the store is asked once a session. */
  private readonly said = new Map<string, ShareChoice | null>();

  constructor(private readonly db: Db) {}

  /** `/share` or `--share`: this session is shared by name from now on (kept in the store, for a resume). */
  byName(sessionId: string): void {
    this.keep(sessionId, "by-name");
  }

  /** `/unshare`: this session is not shared, and not again on its own (a resume included). */
  stop(sessionId: string): void {
    this.keep(sessionId, "stopped");
  }

  isByName(sessionId: string): boolean {
    return this.choice(sessionId) === "by-name";
  }

  isStopped(sessionId: string): boolean {
    return this.choice(sessionId) === "stopped";
  }

  private choice(sessionId: string): ShareChoice | null {
    if (this.said.has(sessionId)) return this.said.get(sessionId) ?? null;
    let choice: ShareChoice | null = null;
    try {
      choice = getShareChoice(this.db, sessionId);
    } catch {
      // the store cannot be read: the automatic rule, as for a session nobody said anything of
    }
    this.said.set(sessionId, choice);
    return choice;
  }

  private keep(sessionId: string, choice: ShareChoice): void {
    this.said.set(sessionId, choice);
    try {
      setShareChoice(this.db, sessionId, choice);
    } catch {
      // kept for this run of the terminal; a resume follows the automatic rule again
    }
  }

  /** Whether a session is to be shared: by name, or — not stopped — one the web may open. */
  wants(session: SessionRef, config: Config, db: Db): boolean {
    const choice = this.choice(session.id);
    if (choice === "by-name") return true;
    if (choice === "stopped") return false;
    return sessionRefusal(session, config.remote, db) === null;
  }

  /**
   * The roots a web prompt's @paths must be inside: the device's, or the project alone when the
   * session was shared by name and no roots are set (the spec's rule); undefined: the device's.
   */
  promptRoots(session: SessionRef, config: Config): readonly string[] | undefined {
    return this.isByName(session.id) && config.remote.roots.length === 0 ? [session.root] : undefined;
  }
}
