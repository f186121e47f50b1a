import { revokeRule, ruleLines } from "../../engine/rule-listing.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/**
 * /permissions: the rules this session's calls are judged by (as `lembas permissions` lists them),
 * with where each holds, where it comes from and when it expires; /permissions revoke ID takes
 * back a kept one.
 */
export function permissions(app: CommandHost, args: string): void {
  const { ctx, session } = app.runtime;
  const [word = "", ...rest] = args.trim().split(/\s+/);
  if (word === "revoke") {
    const id = rest.join(" ");
    if (!id) return say(app, "/permissions revoke takes a rule's id (rule_…): /permissions shows them", "error");
    const answer = revokeRule(ctx.config(), ctx.db(), session.root, id);
    return say(app, answer.text, answer.revoked ? "info" : "error");
  }
  if (word) return say(app, `/permissions takes nothing or revoke ID, not ${word}`, "error");
  for (const line of ruleLines(ctx.config(), ctx.db(), session.root)) say(app, line, line.startsWith("note:") ? "warn" : "info");
}
