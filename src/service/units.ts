/**
 * The files that make `lembas serve` a service: a systemd user unit (Linux) and a launchd
 * LaunchAgent (macOS), as pure functions of a {@link ServiceSpec}.
 *
 * The log: `lembas serve` writes its own, `<state>/logs/lembas.log` (see daemon.ts), which
 * `lembas service logs` reads on both systems. What the process itself prints (a crash's last
 * words, anything before its log is open) the manager keeps: systemd in the journal
 * (`journalctl --user -u lembas`), launchd in `<state>/logs/output.log`.
 */
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { type Env, type Paths, resolvePaths } from "../config/paths.ts";

/** The systemd unit's name. */
export const SYSTEMD_UNIT = "lembas.service";
/** The launchd job's label (reverse DNS of llembas.app). */
export const LAUNCHD_LABEL = "app.llembas.lembas";
/** The log `lembas serve` writes, in the state dir's logs/. */
export const LOG_NAME = "lembas.log";
/** Where launchd puts the service's stdout and stderr, in the state dir's logs/. */
export const OUTPUT_NAME = "output.log";

/** What the service manager runs and how. */
export type ServiceSpec = {
  /** The program (an absolute path) and its arguments, e.g. `[/home/me/.local/bin/lembas, serve]`. */
  command: string[];
  /** Variables the service gets beyond what the manager gives every service. */
  env: Record<string, string>;
  /** The log `lembas serve` writes (named to the person; the manager does not touch it). */
  logFile: string;
  /** Where launchd appends the process's stdout and stderr (systemd keeps them in the journal). */
  outputFile: string;
};

/** The service's log file: `<state>/logs/lembas.log`. */
export function logFile(paths: Paths): string {
  return join(paths.logsDir, LOG_NAME);
}

/**
 * The command that runs this very program as the service: the compiled binary's own path, or,
 * from source, Bun and the entry script.
 */
export function serveCommand(execPath: string = process.execPath, main: string = Bun.main): string[] {
  const compiled = main.startsWith("/$bunfs/") || main.includes("~BUN");
  return compiled ? [execPath, "serve"] : [execPath, main, "serve"];
}

/**
 * The service's spec for the paths this process uses. PATH is carried over (managers start
 * services with a bare one, and the agent's commands need the person's tools); the config and
 * state dirs are pinned whenever they are not the defaults under $HOME, so that the service and
 * the person's terminal use the same files.
 */
export function serviceSpec(env: Env = process.env, command: string[] = serveCommand()): ServiceSpec {
  const paths = resolvePaths(env);
  const defaults = resolvePaths({ HOME: env.HOME });
  const vars: Record<string, string> = {};
  if (env.PATH) vars.PATH = env.PATH;
  if (paths.configDir !== defaults.configDir) vars.LEMBAS_CONFIG_DIR = paths.configDir;
  if (paths.stateDir !== defaults.stateDir) vars.LEMBAS_STATE_DIR = paths.stateDir;
  return { command, env: vars, logFile: logFile(paths), outputFile: join(paths.logsDir, OUTPUT_NAME) };
}

/** Where the unit file goes: `$XDG_CONFIG_HOME/systemd/user/lembas.service` (default ~/.config/…). */
export function systemdUnitPath(env: Env, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "systemd", "user", SYSTEMD_UNIT);
}

/** Where the LaunchAgent goes: `~/Library/LaunchAgents/app.llembas.lembas.plist`. */
export function launchdPlistPath(home: string): string {
  return join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
}

/** The first systemd version that knows RestartSteps= and RestartMaxDelaySec= (the restart backoff). */
export const SYSTEMD_BACKOFF_VERSION = 254;

/**
 * The systemd user unit; its output goes to the journal (no network-online.target: a user
 * manager cannot see it, and the link redials on its own). It restarts on failure after 2 s; from systemd 254 the delay grows to
 * 2 min over 6 failures, so a crash loop is slowed rather than given up on. Older systemd stops
 * trying after 10 failures within 5 min (start it again with `lembas service install`).
 */
export function systemdUnit(spec: ServiceSpec, systemdVersion: number | null = null): string {
  const [program, ...args] = spec.command;
  if (!program?.startsWith("/")) throw new UserError(`the service's program must be an absolute path, not ${program ?? "nothing"}`);
  const backoff = systemdVersion !== null && systemdVersion >= SYSTEMD_BACKOFF_VERSION;
  return [
    "# Written by `lembas service install`; `lembas service uninstall` removes it.",
    "[Unit]",
    "Description=lembas, the LLeMbas coding agent on this device",
    "StartLimitIntervalSec=300",
    "StartLimitBurst=10",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[program, ...args].map(execArg).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=2",
    ...(backoff ? ["RestartSteps=6", "RestartMaxDelaySec=120"] : []),
    ...Object.entries(spec.env).map(([key, value]) => `Environment=${quoteSystemd(`${key}=${value}`)}`),
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

/** An ExecStart= word: `%` specifiers and `$` variables escaped, quoted when it has to be. */
function execArg(word: string): string {
  return quoteSystemd(word).replaceAll("$", "$$$$");
}

/** A value with `%` escaped, in double quotes (with `\` and `"` escaped) unless it is plain. */
function quoteSystemd(value: string): string {
  noNewline(value);
  const escaped = value.replaceAll("%", "%%");
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function noNewline(value: string): void {
  if (/[\n\r]/.test(value)) throw new UserError(`a service setting cannot hold a line break: ${JSON.stringify(value)}`);
}

/**
 * The launchd LaunchAgent: started at login (RunAtLoad), started again when it exits with a
 * failure (KeepAlive without SuccessfulExit, like systemd's Restart=on-failure), at most every
 * 10 s (ThrottleInterval), both output streams appended to `spec.outputFile`.
 */
export function launchdPlist(spec: ServiceSpec): string {
  const [program] = spec.command;
  if (!program?.startsWith("/")) throw new UserError(`the service's program must be an absolute path, not ${program ?? "nothing"}`);
  const env = Object.entries(spec.env).map(([key, value]) => `    <key>${xml(key)}</key>\n    <string>${xml(value)}</string>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Written by `lembas service install`; `lembas service uninstall` removes it. -->",
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  <string>${LAUNCHD_LABEL}</string>`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...spec.command.map((word) => `    <string>${xml(word)}</string>`),
    "  </array>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>ThrottleInterval</key>",
    "  <integer>10</integer>",
    ...(env.length > 0 ? ["  <key>EnvironmentVariables</key>", "  <dict>", ...env, "  </dict>"] : []),
    "  <key>StandardOutPath</key>",
    `  <string>${xml(spec.outputFile)}</string>`,
    "  <key>StandardErrorPath</key>",
    `  <string>${xml(spec.outputFile)}</string>`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

function xml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&apos;");
}
