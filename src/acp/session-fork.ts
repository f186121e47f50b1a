import { z } from "zod";
import type { Session } from "../engine/session.ts";
import { errorMessage } from "../errors.ts";
import { editorServers } from "../mcp/from-editor.ts";
import type { acp } from "../rpc/agent.ts";
import { getSession } from "../store/sessions.ts";
import { invalid } from "./host.ts";
import { commandsUpdate } from "./prompt.ts";
import { liveAnswer, type SessionsHere } from "./sessions-here.ts";
import { storeRequestError } from "./store-errors.ts";

/** session/fork's params (the SDK's unstable ForkSessionRequest): mcpServers are checked by editorServers. */
export const ForkParams = z.looseObject({ sessionId: z.string().min(1), cwd: z.string(), mcpServers: z.unknown().optional() });

/**
 * session/fork: a new session with the whole of this one's history, made by the engine's fork
 * (the terminal's /fork), the original left as it was, and live on this connection. A session
 * another process holds, one working, or one unknown here is refused with a sentence.
 */
export async function forkSession(here: SessionsHere, params: z.infer<typeof ForkParams>, cx: acp.AgentContext) {
  const { host } = here;
  if (host.transport !== "stdio") throw invalid("session/fork is served to an editor on stdio; the link has its own sessions");
  const servers = editorServers(params.mcpServers ?? []);
  if (!servers.ok) throw invalid(servers.error);
  if (!getSession(host.db, params.sessionId)) throw invalid(`there is no session ${params.sessionId} on this device: session/list names those there are`);
  let session: Session;
  try {
    session = host.engine.fork(params.sessionId, null, { origin: host.transport, maxMode: host.maxMode, mcpServers: servers.specs });
  } catch (error) {
    throw storeRequestError(error, host) ?? invalid(errorMessage(error));
  }
  here.attach(session, cx);
  commandsUpdate(session, cx, host);
  return { sessionId: session.id, ...(await liveAnswer(session, host)) };
}
