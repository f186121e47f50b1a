import { agentLines } from "../../engine/agent-listing.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /agents: the custom agents this session's task tool offers, with where each is written, its tools (in the session's mode) and its model. */
export function agents(app: CommandHost): void {
  const { ctx, session } = app.runtime;
  for (const line of agentLines(session.root, ctx.paths.configDir, session.deps.tools, session.mode)) say(app, line.text, line.warn ? "warn" : "info");
}
