/** The lembas service as a launchd LaunchAgent in the person's GUI domain, driven with `launchctl`. */
import { existsSync } from "node:fs";
import { UserError } from "../errors.ts";
import { ensureLogDir, removeUnitFile, writeUnitFileUndoable } from "./files.ts";
import type { ManagerState, ServiceManager } from "./manager-interface.ts";
import { type CommandResult, type CommandRunner, firstLine } from "./runner.ts";
import { LAUNCHD_LABEL, type ServiceSpec, launchdPlist, launchdPlistPath } from "./units.ts";

/** Options of {@link launchdManager}. */
export type LaunchdOptions = {
  home: string;
  uid: number;
  runner: CommandRunner;
  /** How long to wait before trying `bootstrap` again: launchd finishes a `bootout` in its own time. */
  retryDelayMs?: number;
};

const MISSING = "launchctl was not found: lembas service needs launchd (macOS); run lembas serve yourself instead";

/** A {@link ServiceManager} for launchd: `~/Library/LaunchAgents/app.llembas.lembas.plist` in `gui/<uid>`. */
export function launchdManager({ home, uid, runner, retryDelayMs = 1000 }: LaunchdOptions): ServiceManager {
  const unitFile = launchdPlistPath(home);
  const domain = `gui/${uid}`;
  const job = `${domain}/${LAUNCHD_LABEL}`;
  const launchctl = (...args: string[]) => runner(["launchctl", ...args]);

  async function bootstrap(): Promise<CommandResult> {
    const first = await launchctl("bootstrap", domain, unitFile);
    if (first.code === 0 || first.missing) return first;
    await Bun.sleep(retryDelayMs);
    return launchctl("bootstrap", domain, unitFile);
  }

  return {
    kind: "launchd",
    unitFile,

    async install(spec: ServiceSpec): Promise<string[]> {
      const enabled = await launchctl("enable", job);
      if (enabled.missing) throw new UserError(MISSING);
      ensureLogDir(spec.outputFile);
      const written = writeUnitFileUndoable(unitFile, launchdPlist(spec));
      const wrote = written.wrote;
      // A loaded job is booted out first: bootstrap then starts the binary and plist as they are now.
      const wasLoaded = (await launchctl("bootout", job)).code === 0;
      const loaded = await bootstrap();
      if (loaded.code !== 0) throw new UserError(`launchctl bootstrap ${domain} ${unitFile} failed: ${firstLine(loaded)}; ${written.undo()}`);
      return [
        wrote ? `wrote ${unitFile}` : `${unitFile} is up to date`,
        `${LAUNCHD_LABEL} is loaded, ${wasLoaded ? "was restarted" : "running"} and starts at login; its log: ${spec.logFile} (its raw output: ${spec.outputFile})`,
      ];
    },

    async uninstall(): Promise<string[]> {
      const present = existsSync(unitFile);
      const booted = await launchctl("bootout", job);
      if (!present) return ["the lembas service is not installed"];
      removeUnitFile(unitFile);
      if (booted.missing) return [`removed ${unitFile} (launchctl was not found, so nothing was stopped)`];
      return [booted.code === 0 ? `stopped ${LAUNCHD_LABEL}` : `${LAUNCHD_LABEL} was not loaded`, `removed ${unitFile}`];
    },

    async state(): Promise<ManagerState> {
      const installed = existsSync(unitFile);
      const printed = await launchctl("print", job);
      if (printed.missing) return { unitFile, installed, state: "unknown", running: false, problem: "launchctl was not found" };
      if (printed.code !== 0) return { unitFile, installed, state: "not loaded", running: false };
      const state = /^\s*state = (\S+)/m.exec(printed.stdout)?.[1] ?? "loaded";
      return { unitFile, installed, state, running: state === "running" };
    },
  };
}
