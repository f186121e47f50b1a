import { readUsages, usageReport } from "../account/usage-report.ts";
import { UserError } from "../errors.ts";
import { getLogin, listLogins } from "../store/logins.ts";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

/**
 * `lembas usage`: each login's plan, balance, month, this device's spend and rolling windows, as
 * its instance's `GET /v1/usage` says them. A login whose usage cannot be read gets one line on
 * stderr and the exit code 1; the others are still printed.
 */
export default defineCommand({
  meta: {
    name: "usage",
    description: DESCRIPTIONS.usage,
    examples: ["lembas usage", "lembas usage --login work", "lembas usage --login work --json"],
  },
  args: {
    login: { type: "string", description: "Only this login", valueHint: "NAME" },
    json: { type: "boolean", description: "Print the parsed answer as JSON (with --login, the object itself; else keyed by login, null where not reported)" },
  },
  async run({ args }) {
    const db = createContext().db();
    const name = typeof args.login === "string" ? args.login : undefined;
    const logins = name === undefined ? listLogins(db) : [getLogin(db, name)].filter((l) => l !== null);
    if (name !== undefined && logins.length === 0) {
      const known = listLogins(db).map((l) => l.name);
      throw new UserError(`there is no login ${name}${known.length > 0 ? ` (the logins: ${known.join(", ")})` : ""}`, 2);
    }
    if (logins.length === 0) throw new UserError("no logins: lembas login URL links this device to an instance", 1);
    const read = await readUsages(logins);
    const failures: string[] = [];
    const json: Record<string, unknown> = {};
    for (const item of read) {
      const report = usageReport(item);
      if (report.failed) failures.push(report.failed);
      else if (args.json) json[item.login.name] = item.reading.kind === "usage" ? item.reading.usage : null;
      else for (const line of report.lines) console.log(line);
    }
    if (args.json && (name === undefined || failures.length === 0)) console.log(JSON.stringify(name === undefined ? json : json[name], null, 2));
    for (const failure of failures) console.error(failure);
    if (failures.length > 0) process.exitCode = 1;
  },
});
