import type { Paths } from "../config/paths.ts";
import type { Config, Mode } from "../config/schema.ts";
import type { Engine } from "../engine/engine.ts";
import type { Session } from "../engine/session.ts";
import type { FileIndexes } from "../project/files.ts";
import { acp } from "../rpc/agent.ts";
import type { Db } from "../store/db.ts";
import type { Limits, Transport } from "./agent.ts";
import type { CardDesk } from "./cards.ts";
import type { LinkOwners } from "./link-owners.ts";
import type { ClientInfo } from "./client.ts";
import { processLocator, type SessionLocator } from "./whereabouts.ts";

/** What serving ACP needs from its surroundings (the service's link, or `serve --stdio`). */
export type AgentHost = {
  engine: Engine;
  config: Config;
  paths: Paths;
  db: Db;
  transport: Transport;
  /** The link protocol said to this peer (1 or 2); on stdio, ours. */
  protocol: number;
  limits: Limits | null;
  /** The login's connection name on a link; null on stdio. */
  connection: string | null;
  /** The highest mode a session made here may have. */
  maxMode: Mode;
  /** The service's record of which link owns which session (the link only). */
  owners?: LinkOwners;
  /**
   * Where a session is held, and by which front end (whereabouts.ts): the service's knows its
   * links, editors and terminals; absent, the engine and the store alone answer.
   */
  locator?: SessionLocator;
  /** Each session's open cards, kept across links (the link only). */
  desks?: Map<string, CardDesk>;
  /** Called once the client has been answered initialize (the link sends kept deletes then). */
  onInitialized?(cx: acp.AgentContext, client: ClientInfo): void;
  /**
   * Sessions to take up again right after initialize: those the previous link of this login held,
   * so that their turns' events and open cards reach the client without it asking.
   */
  adopt?(): string[];
  /** Bytes the transport has queued and not yet sent (the link's WebSocket), for terminal flow control. */
  bufferedAmount?(): number;
  /** The @ picker's file indexes (capability files, the link only). */
  files?: FileIndexes;
  /** The link's methods and cards (src/acp/link.ts); absent on stdio, which never loads them. */
  link?: LinkSurface;
  /**
   * Only the sessions attached by the host are served; none is opened from the store or made
   * (a terminal serving its shared session to the service over the IPC).
   */
  attachedOnly?: boolean;
  /**
   * Deletes a session in place of the engine's own delete, and keeps the deletes for the clients
   * itself: the terminal that shares it moves to a new session first (tui/share.ts). Absent:
   * `engine.delete`, and the deletes kept for the other clients the session was given to.
   */
  deleteSession?(sessionId: string): Promise<boolean>;
  /**
   * The roots a web prompt's @paths must be inside in a session, when not the remote roots (a
   * terminal's session shared by name while no roots are set: its project alone); undefined: those.
   */
  promptRoots?(session: Session): readonly string[] | undefined;
  /** The service's log (the link); absent on stdio, whose log is stderr. */
  log?(line: string): void;
};

/** What only a link connection adds: its methods, and cards through each session's desk. */
export type LinkSurface = {
  /** Registers the _lembas methods and terminals; closeAll ends the terminals when the link goes. */
  register(app: acp.AgentApp, conn: Conn): { closeAll(): void };
  /** Sends the session's cards to this connection; returns how to stop. */
  attachDesk(conn: Conn, session: Session, cx: acp.AgentContext): () => void;
};

/** One connection's view, shared by the standard methods and the _lembas ones. */
export type Conn = {
  host: AgentHost;
  client(): ClientInfo;
  /** The session a request names: attached here, or (on the link) opened from the store under the same rules. */
  session(sessionId: string, cx: acp.AgentContext): Session;
  attached(sessionId: string): Session | null;
  /** The client turned out to speak the link's protocol 1: no question or plan cards for it. */
  downgrade(): void;
};

/** The host's locator, or one of its engine and store alone. */
export function locatorOf(host: AgentHost): SessionLocator {
  return host.locator ?? processLocator(host.engine, host.db);
}

/** -32602 with a sentence: what the request asked cannot be done, and why. */
export const invalid = (sentence: string) => new acp.RequestError(-32602, `Invalid params: ${sentence}`);

/** The device's ref for a model the instance names by its served name. */
export function instanceRef(host: AgentHost, servedName: string): Promise<string> {
  if (!host.connection) return Promise.resolve(servedName);
  return host.engine.models.refFor(host.connection, servedName);
}
