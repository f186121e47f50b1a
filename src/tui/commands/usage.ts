import { readUsages, usageReport } from "../../account/usage-report.ts";
import { listLogins } from "../../store/logins.ts";
import type { AppSurface } from "../app.ts";
import { say } from "./say.ts";

/** /usage: what `lembas usage` prints, for every login; one that cannot be read is a warning line. */
export async function usage(app: AppSurface): Promise<void> {
  const logins = listLogins(app.runtime.ctx.db());
  if (logins.length === 0) return say(app, "no logins: /login links this device to an instance");
  say(app, "asking…");
  for (const item of await readUsages(logins)) {
    const report = usageReport(item);
    if (report.failed) say(app, report.failed, "warn");
    for (const line of report.lines) say(app, line);
  }
}
