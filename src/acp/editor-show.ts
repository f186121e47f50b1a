import type { EngineEvent } from "../bus/index.ts";
import type { Update } from "./tool-calls.ts";

/** The session's tokens since it was opened in this process, as the SDK's Usage (unstable) names them. */
type Tokens = { inputTokens: number; outputTokens: number; totalTokens: number };

/**
 * What an editor on stdio can show beyond the link's updates (spec/acp.md lists the link's, and
 * the link's client gets the title and usage events themselves): `session_info_update` when the
 * session's title is set or changes, and `usage_update` after each model call. A usage_update's
 * `used` and `size` are the context's fill after the session's last own call (what it sent and
 * got back) and the window compaction works to; a helper's calls (the task tool's) fill their own
 * context, so after one the fill stays and only the tokens grow. The tokens, which ACP's
 * usage_update has no field for, go in its _meta.lembas.
 */
export function editorShow(): (event: EngineEvent) => Update[] {
  const tokens: Tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let context: { used: number; size: number } | null = null;
  let title: string | null = null;
  return (event) => {
    if (event.type === "title") {
      if (event.title === title) return [];
      title = event.title;
      return [{ sessionUpdate: "session_info_update", title: event.title, updatedAt: new Date().toISOString() }];
    }
    if (event.type !== "usage") return [];
    tokens.inputTokens += event.promptTokens;
    tokens.outputTokens += event.completionTokens;
    tokens.totalTokens += event.promptTokens + event.completionTokens;
    if (event.contextLimit !== undefined) context = { used: event.promptTokens + event.completionTokens, size: event.contextLimit };
    if (!context) return [];
    return [{ sessionUpdate: "usage_update", used: context.used, size: context.size, _meta: { lembas: { ...tokens } } }];
  };
}
