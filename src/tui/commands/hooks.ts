import { hookLines } from "../../engine/hook-listing.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /hooks: the hooks this session's project runs (as `lembas hooks` lists them), with where each is written. */
export function hooks(app: CommandHost): void {
  const { ctx, session } = app.runtime;
  for (const line of hookLines(ctx.config(), ctx.db(), session.root, session.cwd)) say(app, line, line.includes("· not run:") ? "warn" : "info");
}
