/**
 * The service manager of this system, behind one interface: systemd's user manager on Linux,
 * launchd on macOS. Commands run through an injectable {@link CommandRunner}.
 */
import { homedir, userInfo } from "node:os";
import type { Env } from "../config/paths.ts";
import { UserError } from "../errors.ts";
import { launchdManager } from "./launchd.ts";
import { type CommandRunner, spawnRunner } from "./runner.ts";
import { systemdManager } from "./systemd.ts";
import type { ServiceManager } from "./manager-interface.ts";

/** Options of {@link serviceManager}; every one defaults to this process's. */
export type ManagerOptions = {
  platform?: NodeJS.Platform;
  env?: Env;
  runner?: CommandRunner;
  uid?: number;
  /** See {@link launchdManager}. */
  retryDelayMs?: number;
};

/** The manager for this platform; a UserError on a platform lembas has no service for. */
export function serviceManager(options: ManagerOptions = {}): ServiceManager {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const runner = options.runner ?? spawnRunner(env);
  const home = env.HOME || homedir();
  // loginctl takes a user name or a uid; Bun's userInfo() knows no name without $USER.
  if (platform === "linux") return systemdManager({ env, home, user: env.USER || env.LOGNAME || String(process.getuid?.() ?? userInfo().uid), runner });
  if (platform === "darwin") {
    const uid = options.uid ?? process.getuid?.() ?? 0;
    return launchdManager({ home, uid, runner, ...(options.retryDelayMs === undefined ? {} : { retryDelayMs: options.retryDelayMs }) });
  }
  throw new UserError(`lembas service supports Linux (systemd) and macOS (launchd), not ${platform}: run lembas serve yourself instead`);
}
