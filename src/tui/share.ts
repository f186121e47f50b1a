/**
 * The terminal's side of sharing: on each IPC connection to the service it serves the link's ACP
 * (the same acp/ handlers an instance's link is served with) for the one session it shares, and
 * tells the service `_lembas/ipc/share` / `_lembas/ipc/leave`.
 *
 * A session is shared when its directory and project are ones the web may open (inside
 * remote.roots, trusted where remote.require_trust: acp/places.ts's judgement), or when the
 * person shared it by name, and not after /unshare (share-choices.ts). Served as for a web
 * prompt: @paths limited to the device's roots (the project alone when shared by name and no roots
 * are set), modes and commands lowered to remote.max_mode. Its cards are the terminal's desk's,
 * shown at the terminal and sent to the service as well (share-cards.ts): the first answer at
 * either end wins.
 */
import type { Paths } from "../config/paths.ts";
import { within } from "../pause.ts";
import type { Config } from "../config/schema.ts";
import type { AgentHost, LinkSurface } from "../acp/host.ts";
import type * as Agent from "./share-agent.ts";
import type { Engine } from "../engine/engine.ts";
import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import type { CommandSet } from "../project/commands.ts";
import type { FileIndexes } from "../project/files.ts";
import type { acp } from "../rpc/agent.ts";
import type { Stream } from "../rpc/stream.ts";
import { LinksParams, type ShareParams } from "../app/ipc-protocol.ts";
import type { Db } from "../store/db.ts";
import type { CardDesk } from "./cards.ts";
import { SharedCards } from "./share-cards.ts";
import { fromService } from "./share-requests.ts";
import { ShareChoices } from "./share-choices.ts";

/** The ACP agent, loaded with the first connection to a service (an idle terminal without one holds about 3 MB less). */
const agent = (): typeof Agent => require("./share-agent.ts") as typeof Agent;

/** How many of the web's turn ids are remembered, to mark its prompts in the transcript. */
const WEB_TURNS_KEPT = 1000;

/** How long quitting or switching waits for the service to take a leave. */
const LEAVE_WAIT_MS = 2000;

/** What sharing a session came to: shared, not wanted (the automatic rule), no service to share with, or the service's refusal. */
export type ShareOutcome = { kind: "shared" } | { kind: "unwanted" } | { kind: "no-service" } | { kind: "refused"; reason: string };

export type ShareDeps = {
  engine: Engine;
  config: Config;
  paths: Paths;
  db: Db;
  files: FileIndexes;
  /** The terminal's cards: those of the shared session go to the service too. */
  desk: CardDesk;
  /** The session the terminal shows now, or null. */
  current(): Session | null;
  /** The web's delete of the session shared: the terminal moves to a new one, deletes it and keeps the deletes. */
  deleteSession(sessionId: string): Promise<boolean>;
};

export class TerminalShare {
  private served: { server: ReturnType<typeof Agent.serveAcp>; connection: acp.AgentConnection; up: boolean } | null = null;
  private shared: string | null = null;
  private readonly cards: SharedCards;
  /** Why the service refused a session's share, by session, until it is shared. */
  private readonly refusals = new Map<string, string>();
  /** The logins whose links are up, as the service last said. */
  private links: string[] = [];
  private readonly changed = new Set<() => void>();
  readonly choices: ShareChoices;

  constructor(private readonly deps: ShareDeps) {
    this.cards = new SharedCards(deps.desk, () => deps.config.remote.max_mode);
    this.choices = new ShareChoices(deps.db);
  }

  /** The id of the session shared now, or null. */
  get sharing(): string | null {
    return this.shared;
  }

  /** Why the service last refused to share this session; null when it did not. */
  refusal(sessionId: string): string | null {
    return this.refusals.get(sessionId) ?? null;
  }

  /** The instances (logins) linked now, as the service last said. */
  get instances(): readonly string[] {
    return this.links;
  }

  /** Calls `listener` when whether a session is shared, or why not, may have changed; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.changed.add(listener);
    return () => this.changed.delete(listener);
  }

  private tell(): void {
    for (const listener of this.changed) listener();
  }

  /** Mounts the ACP handlers on a new IPC connection (ServiceLink's `serve`). */
  serve(stream: Stream): { connection: acp.AgentConnection; close(): void } {
    const models = this.deps.engine.models;
    const requests = fromService(stream, { refFor: (login, served) => models.refFor(login, served), webTurn: (turnId) => this.noteWebTurn(turnId) });
    const server = agent().serveAcp(requests, this.host());
    const served = { server, connection: server.connection, up: false };
    this.served = served;
    return {
      connection: server.connection,
      close: () => {
        server.detachAll();
        if (this.served !== served) return;
        this.served = null;
        this.shared = null;
        this.cards.stop();
        this.tell();
      },
    };
  }

  /** The service took the hello: the session shown now is shared (again, after a reconnect). */
  up(connection: acp.AgentConnection, links: string[]): void {
    if (this.served?.connection !== connection) return;
    this.served.up = true;
    this.links = links;
    const session = this.deps.current();
    if (session) void this.share(session);
    this.tell();
  }

  /** The shares sent and not yet answered: a leave of one waits for its answer, so it is left, not kept. */
  private readonly pending = new Map<string, Promise<ShareOutcome>>();

  /** The turn ids of the web's prompts seen here (the service's `session/prompt`s), the newest kept. */
  private readonly webTurns = new Set<string>();

  /** Whether a turn is one the web sent (its prompt came through the service), for the transcript to say so. */
  fromWeb(turnId: string): boolean {
    return this.webTurns.has(turnId);
  }

  private noteWebTurn(turnId: string): void {
    this.webTurns.add(turnId);
    if (this.webTurns.size > WEB_TURNS_KEPT) this.webTurns.delete(this.webTurns.values().next().value as string);
  }

  /** Shares a session when it is to be shared (share-choices.ts) and a service is there; else says why not. */
  async share(session: Session): Promise<ShareOutcome> {
    const sent = this.send(session);
    this.pending.set(session.id, sent);
    try {
      return await sent;
    } finally {
      if (this.pending.get(session.id) === sent) this.pending.delete(session.id);
    }
  }

  private async send(session: Session): Promise<ShareOutcome> {
    const served = this.served;
    if (!this.choices.wants(session, this.deps.config, this.deps.db)) return { kind: "unwanted" };
    if (!served?.up) return { kind: "no-service" };
    const connection = await this.connectionOf(session);
    if (this.served !== served) return { kind: "no-service" };
    served.server.attach(session);
    const params = shareParams(session, this.choices.isByName(session.id), connection);
    try {
      await served.connection.client.request("_lembas/ipc/share", params);
    } catch (error) {
      // Refused (or the service went): nothing is routed here for it, and the status bar says so.
      if (this.shared !== session.id) served.server.detach(session.id);
      this.refusals.set(session.id, errorMessage(error));
      this.tell();
      return { kind: "refused", reason: errorMessage(error) };
    }
    if (this.served !== served) return { kind: "no-service" };
    this.shared = session.id;
    this.refusals.delete(session.id);
    this.cards.start(served.connection, session.id);
    this.tell();
    return { kind: "shared" };
  }

  /**
   * The connection the session's model is spoken to through (a login's name for an instance's
   * model, whatever its ref looks like), or null when it cannot be resolved now.
   */
  private connectionOf(session: Session): Promise<string | null> {
    return this.deps.engine.models.resolve(session.model).then(
      (model) => model.connection,
      () => null,
    );
  }

  /** The session's command set changed after a turn typed here: the web hears it, as after its own. */
  commandsChanged(session: Session, set: CommandSet): void {
    const served = this.served;
    if (!served?.up || this.shared !== session.id) return;
    agent().sendCommands(session.id, served.connection.client, set);
  }

  /** Stops sharing a session (its hold released first, so the service may say it is available). */
  async leave(sessionId: string): Promise<void> {
    await this.pending.get(sessionId);
    const served = this.served;
    if (!served || this.shared !== sessionId) return;
    this.shared = null;
    this.cards.stop();
    this.tell();
    served.server.detach(sessionId);
    if (!served.up) return;
    await within(served.connection.client.request("_lembas/ipc/leave", { sessionId }), LEAVE_WAIT_MS);
  }

  /**
   * A session was deleted here (/delete, the web's delete, an empty one discarded), its deletes
   * kept: no longer served, and the service told, which ends its share with no left and sends the
   * deletes on the links now.
   */
  deleted(sessionId: string): void {
    const served = this.served;
    if (this.shared === sessionId) {
      this.shared = null;
      served?.server.detach(sessionId);
      // The status bar stops saying shared (the next session may not be).
      this.tell();
    }
    if (served?.up) void served.connection.client.notify("_lembas/ipc/deleted", { sessionId }).catch(() => {});
  }

  private host(): AgentHost {
    const { engine, config, paths, db, files, deleteSession } = this.deps;
    return {
      engine,
      config,
      paths,
      db,
      transport: "link",
      protocol: 2,
      // Read at each use: config.yaml edited while the terminal runs applies from the next request (config/live.ts).
      get limits() {
        return { roots: config.remote.roots, max_mode: config.remote.max_mode };
      },
      connection: null,
      get maxMode() {
        return config.remote.max_mode;
      },
      files,
      link: this.surface(),
      attachedOnly: true,
      // What this terminal runs is its screen's: the web's requests for it come through the share.
      locator: agent().processLocator(engine, db, () => "terminal"),
      deleteSession,
      promptRoots: (session) => this.choices.promptRoots(session, config),
    };
  }

  /**
   * The link's _lembas methods, with no terminals and no desk of their own (the terminal's desk
   * shows the cards), and the service's word of which instances are linked.
   */
  private surface(): LinkSurface {
    return {
      register: (app, conn) => {
        agent().registerLembasMethods(app, conn);
        app.onNotification("_lembas/ipc/links", LinksParams, ({ params }) => {
          this.links = params.links;
          this.tell();
        });
        return { closeAll() {} };
      },
      attachDesk: () => () => {},
    };
  }
}

function shareParams(session: Session, byName: boolean, connection: string | null): ShareParams {
  return {
    sessionId: session.id,
    cwd: session.cwd,
    title: session.title,
    model: session.model,
    connection,
    mode: session.mode,
    effort: session.effort,
    busy: session.busy,
    byName,
  };
}
