import { z } from "zod";
import { lazily } from "../lazy.ts";
import { getSession } from "../store/sessions.ts";
import { invalid } from "./host.ts";
import type { SessionsHere } from "./sessions-here.ts";

const CloseParams = lazily(() => z.looseObject({ sessionId: z.string().min(1) }));

/**
 * session/close: the session's work in this process ends (its turn cancelled, the waiting ones
 * never started, its MCP servers stopped), this connection lets go of it and the process frees it
 * and its hold; session/load or session/resume opens it again from the store. A session not open
 * here has nothing to close (closing is idempotent); one the store does not have is refused.
 */
export async function closeSession(here: SessionsHere, params: unknown): Promise<Record<string, never>> {
  const { host } = here;
  if (host.transport !== "stdio") throw invalid("session/close is served to an editor on stdio; the link has its own sessions");
  const parsed = CloseParams().safeParse(params);
  if (!parsed.success) throw invalid("session/close takes a sessionId");
  const { sessionId } = parsed.data;
  if (!here.attached(sessionId)) {
    if (!getSession(host.db, sessionId)) throw invalid(`there is no session ${sessionId} on this device`);
    return {};
  }
  // Released first: the cancelled turn's last updates and its prompt's answer still reach the editor.
  await host.engine.release(sessionId);
  here.detach(sessionId);
  return {};
}
