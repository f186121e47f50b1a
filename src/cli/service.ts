import { existsSync } from "node:fs";
import { counted } from "../plural.ts";
import { defineCommand } from "./command.ts";
import { createContext } from "../app/context.ts";
import { resolvePaths } from "../config/paths.ts";
import { UserError } from "../errors.ts";
import { readServiceStatus } from "../app/service-status.ts";
import { report } from "./report.ts";
import { byHandLines } from "../service/by-hand.ts";
import { followFile, tailLog } from "../service/logs.ts";
import { captureLoginEnv } from "../service/login-env.ts";
import { loginEnvFile, saveLoginEnv } from "../service/login-env-file.ts";
import { serviceManager } from "../service/manager.ts";
import { describeStatus } from "../service/status.ts";
import { logFile, serviceSpec } from "../service/units.ts";
import { DESCRIPTIONS } from "./descriptions.ts";

/** `lembas service status` exits 3 when the service is not running (as LSB init scripts do). */
const NOT_RUNNING = 3;

const install = defineCommand({
  meta: { name: "install", description: "Run lembas serve as a service: start it now and at login, restart it when it fails", examples: ["lembas service install"] },
  async run() {
    const spec = serviceSpec();
    // Kept before the service (re)starts, so that it starts with it.
    const kept = await keepLoginEnv();
    let lines: string[];
    try {
      lines = await serviceManager().install(spec);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      // The failure's sentence, then how to do without the service manager.
      process.exitCode = report(error);
      const user = process.env.USER || process.env.LOGNAME || "$USER";
      for (const line of byHandLines(spec, process.platform, user)) process.stderr.write(`${line}\n`);
      return;
    }
    for (const line of [...lines, ...(kept ? [kept] : [])]) console.log(line);
  },
});

/** Reads the login shell's environment again for the service's sessions (it restarts with it); the line that says so. */
async function keepLoginEnv(): Promise<string | null> {
  const ctx = createContext();
  // What is kept follows the config (tools.env_passthrough, the MCP servers' ${VAR}s): a broken one is said before anything is read.
  const config = ctx.config();
  const captured = await captureLoginEnv();
  if (!captured.ok) {
    process.stderr.write(`could not read your login shell's environment (${captured.why}): the service's sessions get the service's own\n`);
    return null;
  }
  const kept = saveLoginEnv(ctx.paths, captured.shell, captured.env, config);
  return `kept ${captured.shell}'s login environment (${counted(Object.keys(kept.env).length, "variable")}) for the service's sessions: ${loginEnvFile(ctx.paths)}`;
}

const uninstall = defineCommand({
  meta: { name: "uninstall", description: "Stop the service and remove it", examples: ["lembas service uninstall"] },
  async run() {
    for (const line of await serviceManager().uninstall()) console.log(line);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Whether the service runs, and its links (exit 3 when it does not run)", examples: ["lembas service status"] },
  async run() {
    const paths = resolvePaths();
    const [state, reading] = await Promise.all([serviceManager().state(), readServiceStatus(paths.socketFile)]);
    const report = describeStatus(state, reading);
    for (const line of report.lines) console.log(line);
    if (!report.running) process.exitCode = NOT_RUNNING;
  },
});

const logs = defineCommand({
  meta: { name: "logs", description: "Print the end of the service's log; -f keeps printing what it writes", examples: ["lembas service logs -n 200", "lembas service logs -f"] },
  args: {
    follow: { type: "boolean", alias: "f", description: "keep printing new lines until Ctrl-C" },
    lines: { type: "string", alias: "n", valueHint: "N", default: "50", description: "how many lines to print first" },
  },
  async run({ args }) {
    const count = Number(args.lines);
    if (!Number.isInteger(count) || count < 0) throw new UserError(`--lines must be a whole number, not ${args.lines}`, 2);
    const file = logFile(resolvePaths());
    if (!existsSync(file) && !existsSync(`${file}.1`) && !args.follow) throw new UserError(`there is no log at ${file} yet: the service writes it once it runs (lembas service install)`);
    const { text, ...position } = await tailLog(file, count);
    process.stdout.write(text);
    if (!args.follow) return;
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    await followFile(file, position, (chunk) => process.stdout.write(chunk), stop.signal);
  },
});

export default defineCommand({
  meta: { name: "service", description: DESCRIPTIONS.service, examples: ["lembas service install", "lembas service logs -f"] },
  subCommands: { install, uninstall, status, logs },
});
