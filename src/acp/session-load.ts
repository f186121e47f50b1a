import { editorServers } from "../mcp/from-editor.ts";
import type { acp } from "../rpc/agent.ts";
import { getSession } from "../store/sessions.ts";
import { replayHistory } from "./history-replay.ts";
import { loadedStatus } from "./loaded-status.ts";
import type { Update } from "./updates.ts";
import { invalid } from "./host.ts";
import { commandsUpdate } from "./prompt.ts";
import { checkSessionCwd } from "./session-cwd.ts";
import { liveAnswer, type SessionsHere } from "./sessions-here.ts";

/**
 * session/load's params as the handler takes them, or null: ACP's check (rpc/acp-params.ts) has
 * made them an object with a string sessionId and cwd, and lets an empty sessionId through.
 * mcpServers: checked by src/mcp/from-editor.ts's editorServers, as session/new's are. Checked by
 * hand, as ACP's are: zod compiles a schema at its first parse, 2.6 ms of CPU of the 7 before the
 * first replayed update left (bench/README.md).
 */
function loadParams(params: unknown): { sessionId: string; cwd: string; mcpServers: unknown } | null {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
  const { sessionId, cwd, mcpServers } = params as Record<string, unknown>;
  if (typeof sessionId !== "string" || sessionId.length === 0 || typeof cwd !== "string") return null;
  return { sessionId, cwd, mcpServers };
}

/**
 * session/load: the session opened as session/resume opens it (one held by another process,
 * deleted or unknown here is refused with a sentence), its history replayed as session/updates in
 * order, then its title and its context's fill (loaded-status.ts), then the answer, after which it
 * is live: its events and approvals reach this editor.
 */
export async function loadSession(here: SessionsHere, params: unknown, cx: acp.AgentContext) {
  const { host } = here;
  if (host.transport !== "stdio") throw invalid("session/load is served to an editor on stdio; the link has its own sessions");
  const parsed = loadParams(params);
  if (!parsed) throw invalid("session/load takes a sessionId, a cwd and mcpServers");
  const { sessionId } = parsed;
  checkSessionCwd(host.db, sessionId, parsed.cwd, "load");
  const servers = editorServers(parsed.mcpServers ?? []);
  if (!servers.ok) throw invalid(servers.error);
  const session = here.attached(sessionId) ?? here.open(sessionId, servers.specs);
  // This connection's from here, though attached only after the replay: another editor or the web
  // asking for it meanwhile is refused, as it is once it is attached.
  const loaded = here.loading(sessionId);
  const send = (update: Update) => cx.notify("session/update", { sessionId, update } as acp.SessionNotification);
  try {
    const row = getSession(host.db, sessionId);
    const tokens = await replayHistory(host.db, session, send, row?.summarySeq ?? null);
    if (row) await Promise.all((await loadedStatus(host, session, row, tokens)).map(send));
    // The editor went away mid-replay and its sessions were let go of (service/editors.ts): nothing to attach.
    if (host.engine.get(sessionId) !== session) throw invalid(`session ${sessionId} was closed while it loaded: load it again`);
  } catch (error) {
    loaded();
    // The editor went away mid-replay (or the store failed): a session opened for it is not kept
    // open, unless this connection has it all the same (attached, or loading it by another request).
    if (!here.holds(sessionId)) await host.engine.release(sessionId);
    throw error;
  }
  here.attach(session, cx);
  loaded();
  commandsUpdate(session, cx, host);
  return liveAnswer(session, host);
}
