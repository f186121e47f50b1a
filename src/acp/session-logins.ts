/**
 * The link's rule of logins, asked by every request that names a session by its id, before the
 * rules of place (places.ts): a device logged in to several instances gives each of them only
 * what it could list — sessions made on or given to its own login's link, a terminal's shared
 * session (announced on every link, so given to every login), and sessions never given to any
 * login (a terminal's, an editor's), which the rules of place then judge. A session given to
 * another login, and never to this one, is that instance's: not read, driven nor deleted here.
 */
import { givenToLogins, wasGiven } from "../store/marks.ts";
import type { AgentHost, Conn } from "./host.ts";
import { insideRoots } from "./places.ts";

/** What -32602 says of a session another login's link has. */
export const NOT_THIS_INSTANCES = "not this instance's session";

/** Why this link's login may not name a session (a sentence), or null: the rules of place decide. */
export function loginRefusal(host: Pick<AgentHost, "db" | "connection">, sessionId: string): string | null {
  const login = host.connection;
  if (login === null) return null;
  const given = givenToLogins(host.db, sessionId);
  if (given.length > 0 && !given.includes(login)) {
    return `session ${sessionId} is ${NOT_THIS_INSTANCES}: it was made on or given to another instance this device is logged in to`;
  }
  return null;
}

/**
 * Why this link may not open (attach) a session it names, or null: the rule of logins, and one
 * given to both logins (a terminal's share, left) is still one link's at a time, never taken from
 * another login's link.
 */
export function openRefusal(host: Pick<AgentHost, "db" | "connection" | "owners">, sessionId: string): string | null {
  const refused = loginRefusal(host, sessionId);
  if (refused) return refused;
  const holder = host.owners?.loginOf(sessionId) ?? null;
  if (holder !== null && holder !== host.connection) {
    return `session ${sessionId} is open on the link of another instance this device is logged in to: it can be opened here once that link lets go of it`;
  }
  return null;
}

/**
 * Whether this link's client may read or delete a session (history, status, delete), as a
 * sentence why not, or null: it holds it; or, by the rule of logins, it was given it, or the
 * session's project is inside the remote roots.
 */
export function knowRefusal(conn: Conn, row: { id: string; root: string }): string | null {
  const { host } = conn;
  if (conn.attached(row.id)) return null;
  const refused = loginRefusal(host, row.id);
  if (refused) return refused;
  if (wasGiven(host.db, row.id, host.connection ?? "") || insideRoots(row.root, host.config.remote)) return null;
  return `session ${row.id} was never given to this client and is outside the device's remote roots`;
}
