import { z } from "zod";
import { lazily } from "../lazy.ts";
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

/** mcpServers: checked by src/mcp/from-editor.ts's editorServers, as session/new's are. */
const LoadParams = lazily(() => z.looseObject({ sessionId: z.string().min(1), cwd: z.string(), mcpServers: z.unknown().optional() }));

/**
 * session/load: the session opened as session/resume opens it (one held by another process,
 * deleted or unknown here is refused with a sentence), its history replayed as session/updates in
 * order, then its title and its context's fill (loaded-status.ts), then the answer, after which it
 * is live: its events and approvals reach this editor.
 */
export async function loadSession(here: SessionsHere, params: unknown, cx: acp.AgentContext) {
  const { host } = here;
  if (host.transport !== "stdio") throw invalid("session/load is served to an editor on stdio; the link has its own sessions");
  const parsed = LoadParams().safeParse(params);
  if (!parsed.success) throw invalid("session/load takes a sessionId, a cwd and mcpServers");
  const { sessionId } = parsed.data;
  checkSessionCwd(host.db, sessionId, parsed.data.cwd, "load");
  const servers = editorServers(parsed.data.mcpServers ?? []);
  if (!servers.ok) throw invalid(servers.error);
  const already = here.attached(sessionId);
  const session = already ?? here.open(sessionId, servers.specs);
  const send = (update: Update) => cx.notify("session/update", { sessionId, update } as acp.SessionNotification);
  try {
    const row = getSession(host.db, sessionId);
    const tokens = await replayHistory(host.db, session, send, row?.summarySeq ?? null);
    if (row) await Promise.all((await loadedStatus(host, session, row, tokens)).map(send));
  } catch (error) {
    // The editor went away mid-replay (or the store failed): a session opened for it is not kept open.
    if (!already) await host.engine.release(sessionId);
    throw error;
  }
  here.attach(session, cx);
  commandsUpdate(session, cx, host);
  return liveAnswer(session, host);
}
