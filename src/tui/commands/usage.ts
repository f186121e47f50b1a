import { readUsages, usageReport } from "../../account/usage-report.ts";
import { listLogins } from "../../store/logins.ts";
import type { CommandHost } from "../command-host.ts";
import { say } from "./say.ts";

/** /usage: what `lembas usage` prints, for every login; one that cannot be read is a warning line. */
export async function usage(app: CommandHost): Promise<void> {
  const logins = listLogins(app.runtime.ctx.db());
  if (logins.length === 0) return say(app, "no logins: /login links this device to an instance");
  // Said as it asks, it heads what comes: no "asking…" left standing once the answers are in.
  say(app, `the usage of ${logins.length === 1 ? "1 login" : `${logins.length} logins`}, as ${logins.length === 1 ? "its instance reports" : "their instances report"} it:`);
  for (const item of await readUsages(logins)) {
    const report = usageReport(item);
    if (report.failed) say(app, report.failed, "warn");
    // One block a login: its lines together, not each a paragraph of its own.
    if (report.lines.length > 0) say(app, report.lines.join("\n"));
  }
}
