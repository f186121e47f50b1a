import { errorMessage } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { getInstanceMcp, setInstanceMcp } from "../store/instance-mcp.ts";
import type { Login } from "../store/logins.ts";
import type { McpProblem } from "./entry.ts";
import { toolSafeName } from "./names.ts";
import type { McpServerSpec } from "./spec.ts";

/** The header that carries the device token: named in secretHeaders, so it is never logged. */
export const INSTANCE_AUTH_HEADER = "Authorization";

/** How long what a probe found of an instance's /mcp is kept before it is asked again. */
export const INSTANCE_MCP_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** A login's instance's `/mcp` (source "instance"): streamable HTTP with the device token. */
export function instanceServer(login: Pick<Login, "name" | "url" | "token">): McpServerSpec {
  return {
    name: toolSafeName(login.name),
    source: "instance",
    transport: { type: "http", url: `${login.url}/mcp`, headers: { [INSTANCE_AUTH_HEADER]: `Bearer ${login.token}` } },
    secretHeaders: [INSTANCE_AUTH_HEADER],
  };
}

/** What a probe of /mcp found: it serves it; it does not; or it could not tell (down, or the token refused: `why`). */
export type McpProbe = { found: "serves" | "absent" } | { found: "unknown"; why: string };

/**
 * Asks an instance whether it serves /mcp: an MCP `initialize` POSTed with the device token (the
 * well-known discovery document has no field that says so). A 2xx is an MCP endpoint (its session,
 * if it made one, is closed again); 404, 405 or 501 is none; anything else cannot tell.
 */
export async function probeInstanceMcp(url: string, token: string, timeoutMs = 3_000, signal?: AbortSignal): Promise<McpProbe> {
  const limit = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  const headers = { [INSTANCE_AUTH_HEADER]: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lembas-probe", version: "1" } },
  };
  let response: Response;
  try {
    response = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify(initialize), signal: limit, redirect: "error" });
  } catch (error) {
    return { found: "unknown", why: `${url}/mcp could not be reached: ${errorMessage(error)}` };
  }
  await response.body?.cancel().catch(() => {});
  if ([404, 405, 501].includes(response.status)) return { found: "absent" };
  if (!response.ok) return { found: "unknown", why: `${url}/mcp answered ${response.status}${response.status === 401 ? " (the device token was refused: lembas login again)" : ""}` };
  const session = response.headers.get("mcp-session-id");
  if (session) await fetch(`${url}/mcp`, { method: "DELETE", headers: { [INSTANCE_AUTH_HEADER]: `Bearer ${token}`, "mcp-session-id": session }, signal: limit }).then((r) => r.body?.cancel(), () => {});
  return { found: "serves" };
}

export type InstanceServerOptions = {
  /** Ask every instance now, whatever was remembered (`lembas mcp list --probe`). */
  fresh?: boolean;
  /**
   * Never wait for an instance (a session): what the store says is used, however old; one never
   * asked, or asked more than a day ago, is asked here in the background, for the next session.
   */
  background?: { start(login: Login): void };
  now?: number;
  probe?: (url: string, token: string) => Promise<McpProbe>;
};

/**
 * The /mcp servers of the logins whose instance serves one: what a probe found is kept in the store
 * for a day ({@link INSTANCE_MCP_MAX_AGE_MS}), so that it is not asked each time; a probe that
 * cannot tell keeps what was found before (none, if nothing was). `lembas login` asks at once.
 */
export async function instanceServers(db: Db, logins: readonly Login[], options: InstanceServerOptions = {}): Promise<{ specs: McpServerSpec[]; problems: McpProblem[] }> {
  const now = options.now ?? Date.now();
  const probe = options.probe ?? probeInstanceMcp;
  const specs: McpServerSpec[] = [];
  const problems: McpProblem[] = [];
  await Promise.all(
    logins.map(async (login) => {
      const kept = getInstanceMcp(db, login.url);
      let serves = kept?.serves ?? false;
      const stale = !kept || now - kept.probedAt > INSTANCE_MCP_MAX_AGE_MS;
      if (options.background) {
        if (stale) options.background.start(login);
      } else if (options.fresh || stale) {
        const found = await probe(login.url, login.token);
        if (found.found === "unknown") problems.push({ name: toolSafeName(login.name), problem: found.why });
        else {
          serves = found.found === "serves";
          setInstanceMcp(db, login.url, serves, now);
        }
      }
      if (serves) specs.push(instanceServer(login));
    }),
  );
  const order = new Map(logins.map((l, i) => [toolSafeName(l.name), i]));
  specs.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  return { specs, problems };
}
