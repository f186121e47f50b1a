/**
 * The sessions terminals share with the web through this service: which terminal connection
 * shares which session (one each), and the links they are announced on. A share is announced on
 * every link whose client said `_meta.lembas` (and again when a link comes up), its events are
 * relayed to them, and when the terminal lets go — `_lembas/ipc/leave`, or its IPC connection
 * drops — every link hears `_lembas/session/left { available }`.
 *
 * The service runs nothing here: the terminal runs the session's engine, the router (router.ts)
 * forwards the link's requests for it to the terminal that shares it.
 */
import type { Remote } from "../config/schema.ts";
import { sessionRefusal } from "../acp/places.ts";
import type { AnyMessage } from "../rpc/stream.ts";
import type { Db } from "../store/db.ts";
import { isPendingDelete } from "../store/deletes.ts";
import { heldElsewhere } from "../store/placement.ts";
import { markGiven } from "../store/marks.ts";
import { getSession } from "../store/sessions.ts";
import type { ShareParams } from "../app/ipc-protocol.ts";
import type { Outlet } from "./outlet.ts";
import { ShareCards } from "./share-cards.ts";
import { Moves } from "./moves.ts";
import { commandsNotification } from "./share-commands.ts";

/** How a link's request reaches the terminal that shares the session (its IPC connection). */
export type Forwarder = {
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
  notify(method: string, params: unknown): void;
};

/** How long a dropped terminal's session is watched for its process to be gone, before left says whether it is available (a killed process of some size takes a while to go on a loaded machine). */
const DROP_GRACE_MS = 3000;

type Share = { owner: object; forward: Forwarder; params: ShareParams; root: string };

export class Shares {
  private readonly shares = new Map<string, Share>();
  private readonly outlets = new Set<Outlet>();
  /** The shared sessions' open cards, on every link (share-cards.ts). */
  readonly cards = new ShareCards((sessionId, owner) => this.shares.get(sessionId)?.owner === owner);
  /** The sessions the service is handing to a terminal (the router holds their requests meanwhile). */
  readonly moves = new Moves();
  private readonly linkWatchers = new Set<(logins: string[]) => void>();

  constructor(private readonly deps: { db: Db; remote: Remote; configDir: string; log?(line: string): void }) {}

  /**
   * A terminal (`owner`: its IPC connection, `pid`: the process its hello named) shares a session,
   * or says again what it is. The service judges it as its own link would, from the store, not
   * from what the terminal says: the session must be there, its directory and project ones the web
   * may open (unless the person at the terminal shared it by name), and held by that terminal's
   * process. Returns why not (nothing is shared then), or null.
   */
  share(owner: object, forward: Forwarder, given: ShareParams, pid: number): string | null {
    const refused = this.refusal(given.sessionId, pid, given.byName);
    if (refused) return refused;
    const row = getSession(this.deps.db, given.sessionId);
    // The directory announced is the store's.
    const params = row ? { ...given, cwd: row.cwd } : given;
    const before = this.shares.get(params.sessionId);
    if (before && before.owner !== owner) this.cards.leave(params.sessionId);
    // A session is shared by one terminal: another one saying it takes it over (the first let go of it).
    const share: Share = { owner, forward, params, root: row?.root ?? params.cwd };
    this.shares.set(params.sessionId, share);
    if (!before) this.deps.log?.(`session ${params.sessionId} shared by a terminal${params.byName ? " by name" : ""} (${params.cwd})`);
    for (const outlet of this.outlets) this.announce(outlet, share);
    return null;
  }

  /** Why a terminal of `pid` may not share a session (a sentence), or null. */
  private refusal(sessionId: string, pid: number, byName: boolean): string | null {
    const { db, remote } = this.deps;
    try {
      const row = getSession(db, sessionId);
      if (!row) return `there is no session ${sessionId} on this device`;
      if (isPendingDelete(db, sessionId)) return `session ${sessionId} is being deleted`;
      const refused = byName ? null : sessionRefusal(row, remote, db);
      if (refused) return refused;
      if (heldElsewhere(db, sessionId)?.pid !== pid) return `session ${sessionId} is not held by this terminal (pid ${pid})`;
      return null;
    } catch (error) {
      return `session ${sessionId} could not be read from the store: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** The terminal let go of a session (its hold released first): every link hears left. */
  leave(owner: object, sessionId: string): void {
    if (!this.take(owner, sessionId)) return;
    this.left(sessionId, this.available(sessionId));
  }

  /**
   * The terminal's IPC connection closed: each session it shared is left at once (nothing more is
   * routed there). A terminal killed closes its socket a moment before its process is gone, so
   * whether the session is available is asked again for a short while before it is said.
   */
  async drop(owner: object): Promise<void> {
    const ids = [...this.shares].filter(([, share]) => share.owner === owner).map(([id]) => id);
    for (const id of ids) this.take(owner, id);
    await Promise.all(ids.map(async (id) => this.left(id, await this.availableSoon(id))));
  }

  /** The session was deleted: its share ends with no left (the links hear deleted instead). */
  forget(sessionId: string, owner?: object): void {
    if (owner === undefined || this.shares.get(sessionId)?.owner === owner) this.shares.delete(sessionId);
  }

  private take(owner: object, sessionId: string): boolean {
    const share = this.shares.get(sessionId);
    if (!share || share.owner !== owner) return false;
    this.shares.delete(sessionId);
    this.cards.leave(sessionId);
    return true;
  }

  private left(sessionId: string, available: boolean): void {
    // Shared again meanwhile (the terminal came back): it was not left after all.
    if (this.shares.has(sessionId)) return;
    this.deps.log?.(`session ${sessionId} no longer shared (available: ${available})`);
    for (const outlet of this.outlets) outlet.send(notification("_lembas/session/left", { sessionId, available }));
  }

  private async availableSoon(sessionId: string): Promise<boolean> {
    const until = Date.now() + DROP_GRACE_MS;
    for (;;) {
      if (this.available(sessionId) || Date.now() >= until) return this.available(sessionId);
      await Bun.sleep(50);
    }
  }

  /** The terminal connection that shares a session now, or null. */
  holder(sessionId: string): Forwarder | null {
    return this.shares.get(sessionId)?.forward ?? null;
  }

  /** The sessions shared now. */
  sessions(): string[] {
    return [...this.shares.keys()];
  }

  /** A link came up (its client said `_meta.lembas`): every share is announced on it. Returns how to stop. */
  link(outlet: Outlet): () => void {
    this.outlets.add(outlet);
    for (const share of this.shares.values()) this.announce(outlet, share);
    const stopCards = this.cards.link(outlet);
    this.linksChanged();
    return () => {
      stopCards();
      if (this.outlets.delete(outlet)) this.linksChanged();
    };
  }

  /** The logins whose links are up now (each once), as the terminals' status bars name them. */
  logins(): string[] {
    return [...new Set([...this.outlets].map((o) => o.login))].sort();
  }

  /** Calls `listener` with {@link logins} each time a link comes up or goes; returns how to stop. */
  watchLinks(listener: (logins: string[]) => void): () => void {
    this.linkWatchers.add(listener);
    return () => this.linkWatchers.delete(listener);
  }

  private linksChanged(): void {
    const logins = this.logins();
    for (const listener of this.linkWatchers) listener(logins);
  }

  /**
   * A terminal's `session/update` or `_lembas/event` for a session it shares: sent on every link,
   * the model event's `instance` said for each link's login. What the share says is kept up to
   * date from the events, for the next announce.
   */
  relay(owner: object, method: string, params: unknown): void {
    const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    if (typeof sessionId !== "string") return;
    const share = this.shares.get(sessionId);
    if (!share || share.owner !== owner) return;
    if (method === "_lembas/event") {
      const event = (params as { event?: Record<string, unknown> }).event ?? {};
      this.follow(share, event);
      for (const outlet of this.outlets) {
        const mapped = event.type === "model" ? { ...event, instance: typeof event.connection === "string" && event.connection === outlet.login } : event;
        outlet.send(notification(method, { sessionId, event: mapped }));
      }
      return;
    }
    for (const outlet of this.outlets) outlet.send(notification(method, params));
  }

  /**
   * Whether the service could open a session the terminal let go of at the next prompt: it is in
   * the store, no live process holds it, and the web may open it (its directory and its project).
   */
  available(sessionId: string): boolean {
    const { db, remote } = this.deps;
    try {
      const row = getSession(db, sessionId);
      if (!row || heldElsewhere(db, sessionId) !== null) return false;
      return sessionRefusal(row, remote, db) === null;
    } catch {
      return false;
    }
  }

  /** The announce, then the session's command set (the spec's "when a terminal's session is shared"). */
  private announce(outlet: Outlet, share: Share): void {
    const p = share.params;
    try {
      // A chat deleted on the device is not made again by an announce.
      if (isPendingDelete(this.deps.db, p.sessionId)) return;
    } catch {
      // the store cannot say: the announce goes, as before
    }
    try {
      markGiven(this.deps.db, p.sessionId, outlet.login);
    } catch {
      // the mark only widens what this client may delete later; the announce still goes
    }
    outlet.send(
      notification("_lembas/session/announce", {
        sessionId: p.sessionId,
        cwd: p.cwd,
        title: p.title,
        model: p.model,
        instance: p.connection !== null && p.connection === outlet.login,
        mode: p.mode,
        effort: p.effort,
        busy: p.busy,
        origin: "terminal",
      }),
    );
    const commands = commandsNotification(p.sessionId, share.root, this.deps.configDir);
    if (commands) outlet.send(commands);
  }

  private follow(share: Share, event: Record<string, unknown>): void {
    const p = share.params;
    const str = (v: unknown) => (typeof v === "string" ? v : null);
    if (event.type === "title") share.params = { ...p, title: str(event.title) ?? p.title };
    else if (event.type === "session") share.params = { ...p, title: str(event.title) ?? p.title, mode: str(event.mode) ?? p.mode, effort: str(event.effort) ?? p.effort, model: str(event.model) ?? p.model };
    else if (event.type === "model") share.params = { ...p, model: str(event.ref) ?? p.model, effort: str(event.effort) ?? p.effort, connection: str(event.connection) };
    else if (event.type === "mode") share.params = { ...p, mode: str(event.mode) ?? p.mode };
    // What a later announce says of busy is the truth then, not what the terminal said when it shared.
    else if (event.type === "task") share.params = { ...p, busy: event.state === "start" };
  }
}

function notification(method: string, params: unknown): AnyMessage {
  return { jsonrpc: "2.0", method, params } as AnyMessage;
}
