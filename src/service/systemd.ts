/** The lembas service as a systemd user unit, driven with `systemctl --user`. */
import { existsSync } from "node:fs";
import type { Env } from "../config/paths.ts";
import { errorMessage, UserError } from "../errors.ts";
import { removeUnitFile, writeUnitFileUndoable } from "./files.ts";
import type { ManagerState, ServiceManager } from "./manager-interface.ts";
import { type CommandResult, type CommandRunner, firstLine } from "./runner.ts";
import { SYSTEMD_UNIT, type ServiceSpec, systemdUnit, systemdUnitPath } from "./units.ts";

/** Options of {@link systemdManager}. */
export type SystemdOptions = { env: Env; home: string; user: string; runner: CommandRunner };

/** A {@link ServiceManager} for systemd's user manager; the unit goes where `$XDG_CONFIG_HOME` says. */
export function systemdManager({ env, home, user, runner }: SystemdOptions): ServiceManager {
  const unitFile = systemdUnitPath(env, home);
  const systemctl = (...args: string[]) => runner(["systemctl", "--user", ...args]);

  /** Runs `systemctl --user ARGS`; a failure is a UserError saying which command and why. */
  async function must(...args: string[]): Promise<void> {
    const result = await systemctl(...args);
    if (result.code === 0) return;
    throw new UserError(`systemctl --user ${args.join(" ")} failed: ${firstLine(result)} (is a systemd user session running?)`);
  }

  return {
    kind: "systemd",
    unitFile,

    async install(spec: ServiceSpec): Promise<string[]> {
      const version = await systemdVersion(runner);
      const before = (await systemctl("is-active", SYSTEMD_UNIT)).stdout.trim();
      const wasActive = before === "active";
      // A unit that hit its start limit refuses to start until reset: installing again is trying again.
      if (before === "failed") await systemctl("reset-failed", SYSTEMD_UNIT);
      const written = writeUnitFileUndoable(unitFile, systemdUnit(spec, version));
      const wrote = written.wrote;
      try {
        await must("daemon-reload");
        await must("enable", "--now", SYSTEMD_UNIT);
        if (wasActive) await must("restart", SYSTEMD_UNIT);
      } catch (error) {
        // What this install wrote goes; systemd is told, if it listens, so that it forgets the unit too.
        const undone = written.undo();
        if (written.wrote) await systemctl("daemon-reload");
        throw new UserError(`${errorMessage(error)}; ${undone}`);
      }
      const lines = [
        wrote ? `wrote ${unitFile}` : `${unitFile} is up to date`,
        `${SYSTEMD_UNIT} is enabled and ${wasActive ? "was restarted" : "running"}; its log: ${spec.logFile} (its raw output: journalctl --user -u lembas)`,
      ];
      if (await lingerOff(runner, user)) {
        lines.push(`it stops when you log out and starts when you log in; to keep it running: loginctl enable-linger ${user}`);
      }
      return lines;
    },

    async uninstall(): Promise<string[]> {
      const present = existsSync(unitFile);
      const disabled = await systemctl("disable", "--now", SYSTEMD_UNIT);
      if (disabled.missing) {
        if (!present) return ["the lembas service is not installed"];
        removeUnitFile(unitFile);
        return [`removed ${unitFile} (systemctl was not found, so nothing was stopped)`];
      }
      if (!present) return ["the lembas service is not installed"];
      if (disabled.code !== 0) {
        throw new UserError(
          `systemctl --user disable --now ${SYSTEMD_UNIT} failed: ${firstLine(disabled)} (the unit stays at ${unitFile}; remove it by hand if systemd is not in use here)`,
        );
      }
      removeUnitFile(unitFile);
      await must("daemon-reload");
      return [`stopped and disabled ${SYSTEMD_UNIT}`, `removed ${unitFile}`];
    },

    async state(): Promise<ManagerState> {
      const installed = existsSync(unitFile);
      const result = await systemctl("is-active", SYSTEMD_UNIT);
      if (result.missing) return { unitFile, installed, state: "unknown", running: false, problem: "systemctl was not found" };
      const state = result.stdout.trim();
      if (!state) return { unitFile, installed, state: "unknown", running: false, problem: firstLine(result) };
      return { unitFile, installed, state, running: state === "active" || state === "reloading" };
    },
  };
}

/** systemd's version from `systemctl --version`; a UserError when systemctl is missing. */
export async function systemdVersion(runner: CommandRunner): Promise<number | null> {
  const result: CommandResult = await runner(["systemctl", "--version"]);
  if (result.missing) {
    throw new UserError("systemctl was not found: lembas service needs systemd's user manager here; run lembas serve yourself instead");
  }
  const match = /^systemd (\d+)/m.exec(result.stdout);
  return match?.[1] ? Number(match[1]) : null;
}

/** Whether the user's services stop at logout (lingering off); unknown counts as no. */
async function lingerOff(runner: CommandRunner, user: string): Promise<boolean> {
  const result = await runner(["loginctl", "show-user", user, "--property=Linger", "--value"]);
  return result.code === 0 && result.stdout.trim() === "no";
}
