import type { ToolContext } from "./tool.ts";

/**
 * What a listing under `base` leaves out: secrets, by name too. Other protected paths are listed
 * (reading them asks). A base that is itself a secret was asked about by name, so what the
 * person allowed is listed whole.
 */
export function secretsUnder(base: string, ctx: Pick<ToolContext, "protection">): ((path: string) => boolean) | undefined {
  if (ctx.protection(base) === "secret") return undefined;
  return (path) => ctx.protection(path) === "secret";
}
