import { ruleLines } from "../../engine/rule-listing.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /permissions: the rules this session's calls are judged by (as `lembas permissions` lists them), with where each holds, where it comes from and when it expires. */
export function permissions(app: CommandHost): void {
  const { ctx, session } = app.runtime;
  for (const line of ruleLines(ctx.config(), ctx.db(), session.root)) say(app, line, line.startsWith("note:") ? "warn" : "info");
}
