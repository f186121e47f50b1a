import { z } from "zod";
import { lazily } from "../lazy.ts";
import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import { editorServers } from "../mcp/from-editor.ts";
import type { acp } from "../rpc/agent.ts";
import { storedTokens } from "../engine/tokens.ts";
import { getSession } from "../store/sessions.ts";
import { editorRefusal } from "./whereabouts.ts";
import { invalid } from "./host.ts";
import { loadedStatus } from "./loaded-status.ts";
import { commandsUpdate } from "./prompt.ts";
import { checkSessionCwd } from "./session-cwd.ts";
import { liveAnswer, type SessionsHere } from "./sessions-here.ts";
import { storeRequestError } from "./store-errors.ts";

/** session/fork's params (the SDK's unstable ForkSessionRequest): mcpServers are checked by editorServers. */
export const ForkParams = lazily(() => z.looseObject({ sessionId: z.string().min(1), cwd: z.string(), mcpServers: z.unknown().optional() }));

/**
 * session/fork: a new session with the whole of this one's history, made by the engine's fork
 * (the terminal's /fork), the original left as it was, and live on this connection. A session
 * another process holds, one working, or one unknown here is refused with a sentence.
 */
export async function forkSession(here: SessionsHere, params: z.infer<ReturnType<typeof ForkParams>>, cx: acp.AgentContext) {
  const { host } = here;
  if (host.transport !== "stdio") throw invalid("session/fork is served to an editor on stdio; the link has its own sessions");
  checkSessionCwd(host.db, params.sessionId, params.cwd, "fork");
  const servers = editorServers(params.mcpServers ?? []);
  if (!servers.ok) throw invalid(servers.error);
  if (!getSession(host.db, params.sessionId)) throw invalid(`there is no session ${params.sessionId} on this device: session/list names those there are`);
  // Through the service, another front end's session is refused as another process's is.
  const refused = host.locator && !here.holds(params.sessionId) ? editorRefusal(host.locator.where(params.sessionId), params.sessionId) : null;
  if (refused) throw invalid(refused);
  let session: Session;
  try {
    session = host.engine.fork(params.sessionId, null, { origin: host.transport, maxMode: host.maxMode, mcpServers: servers.specs });
  } catch (error) {
    throw storeRequestError(error, host) ?? invalid(errorMessage(error));
  }
  here.attach(session, cx);
  commandsUpdate(session, cx, host);
  forkStatus(session, cx, host);
  return { sessionId: session.id, ...(await liveAnswer(session, host)) };
}

/**
 * What a load says after its replay (loaded-status.ts), the fork's title and its context's fill,
 * sent after the answer: before it, the editor does not know the fork's id and drops its updates.
 */
function forkStatus(session: Session, cx: acp.AgentContext, host: SessionsHere["host"]): void {
  setTimeout(async () => {
    try {
      const row = getSession(host.db, session.id);
      if (!row) return;
      const tokens = session
        .messages()
        .filter((message) => message.seq > (row.summarySeq ?? 0))
        .reduce((sum, message) => sum + storedTokens(message), 0);
      for (const update of await loadedStatus(host, session, row, tokens)) await cx.notify("session/update", { sessionId: session.id, update } as acp.SessionNotification);
    } catch {
      // The editor went away, or the store failed: the fork is live all the same, its title shown at its next change.
    }
  }, 0);
}
