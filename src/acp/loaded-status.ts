import type { Session } from "../engine/session.ts";
import { DEFAULT_CONTEXT } from "../model/resolved.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { AgentHost } from "./host.ts";
import type { Update } from "./updates.ts";

/**
 * What a session/load says after the replay that the live stream said as it went (editor-show.ts):
 * the session's title (`session_info_update`, when it has one) and its context's fill
 * (`usage_update`): `used` the estimated tokens of what the model is sent of the history now,
 * `size` the model's window. No model call has been made in this process yet: the tokens in its
 * _meta.lembas are nought, as a session's are when it is opened.
 */
export async function loadedStatus(host: AgentHost, session: Session, row: SessionRow, contextTokens: number): Promise<Update[]> {
  const out: Update[] = [];
  if (session.title) out.push({ sessionUpdate: "session_info_update", title: session.title, updatedAt: new Date(row.updatedAt).toISOString() });
  const size = await host.engine.models.resolve(session.model).then(
    (model) => model.contextLength ?? DEFAULT_CONTEXT,
    () => null,
  );
  // A session whose model cannot be resolved (none configured any more) has no window to fill.
  if (size !== null) out.push({ sessionUpdate: "usage_update", used: contextTokens, size, _meta: { lembas: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } } });
  return out;
}
