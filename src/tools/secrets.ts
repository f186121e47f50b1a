import { judgeFound } from "../project/protected.ts";
import type { ToolContext } from "./tool.ts";

/**
 * What a listing under `base` leaves out: secrets, by name too, judged as written and as they
 * really are (the base may be a symlink to `.ssh`). Other protected paths are listed (reading them
 * asks). A base that is itself a secret was asked about, so what the person allowed is listed whole.
 */
export function secretsUnder(base: string, ctx: ToolContext<"files">): ((path: string) => boolean) | undefined {
  const judge = judgeFound(base, ctx.root, ctx.files.protection);
  if (judge(base) === "secret") return undefined;
  return (path) => judge(path) === "secret";
}
