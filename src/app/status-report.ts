import { readServiceStatus, terminalsLine } from "./service-status.ts";
import { listLogins } from "../store/logins.ts";
import { balanceLine, readUsages } from "../account/usage-report.ts";
import type { Context } from "./context.ts";
import { cachedApplied, refreshPersonalization } from "../account/personal-source.ts";
import { localKeys, sourceLine } from "../account/personal-settings.ts";

/**
 * What `lembas status` says, a line each: every login with its link's state, its balance and its
 * sessions, then the service and the terminals connected to it. A terminal gives `serviceLine`, its own word on the service.
 */
export async function statusLines(ctx: Context, serviceLine?: string): Promise<string[]> {
  const lines: string[] = [];
  const logins = listLogins(ctx.db());
  const db = ctx.db();
  const [service, usages] = await Promise.all([readServiceStatus(ctx.paths.socketFile), readUsages(logins), refreshPersonalization(db, logins)]);
  if (logins.length === 0) lines.push("no logins: lembas login URL links this device to an instance");
  for (const login of logins) {
    const link = service.running ? service.status.links.find((l) => l.name === login.name) : undefined;
    const state = !service.running ? "no link (the service is not running)" : link ? `${link.state} since ${link.since}` : "no link yet";
    lines.push(`${login.name}  ${login.url}  ${state}`);
    const usage = usages.find((u) => u.login.name === login.name);
    if (usage) lines.push(`  ${balanceLine(usage.reading)}`);
    for (const session of link?.sessions ?? []) lines.push(`  ${session}`);
  }
  if (logins.length > 0) lines.push(sourceLine(cachedApplied(db, localKeys(ctx.config), logins)));
  if (serviceLine) lines.push(serviceLine);
  else if (service.running) lines.push(`service: running (pid ${service.status.pid}, lembas ${service.status.version})`);
  else lines.push(`service: not running (${service.reason})`);
  if (service.running) lines.push(terminalsLine(service.status.terminals));
  return lines;
}
