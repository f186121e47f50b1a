import { homedir } from "node:os";
import { createOutput, type OutputSink, type OutputStats } from "./output.ts";
import { openPty } from "./pty.ts";
import { detectShell, readPasswdShell, shellLaunch, type Env, type Shell, type ShellKind } from "./shell.ts";

/**
 * One terminal as `_lembas/terminal/*` offers it: the person's login shell in a PTY, with or
 * without shell integration, its output coalesced and flow-controlled into a sink (output.ts).
 */

export type TerminalOptions = {
  cwd: string;
  cols: number;
  rows: number;
  /** remote.terminal_integration: the rc wrapper for bash, zsh and fish. */
  integration: boolean;
  /** Where output frames go (the link: `_lembas/terminal/output`). */
  sink: OutputSink;
  /** The environment the shell starts from; this process's by default. */
  env?: Env;
  /** The shell; the person's login shell (detectShell) by default. */
  shell?: Shell;
};

/** A running terminal. */
export type Terminal = {
  readonly pid: number;
  readonly shell: ShellKind;
  /** Whether the shell runs with the rc wrapper (always false for "other"). */
  readonly integration: boolean;
  /** Keystrokes. */
  input(data: Uint8Array | string): void;
  resize(cols: number, rows: number): void;
  /** The sink's buffer went down (a WebSocket's drain): hand on what waits. */
  drained(): void;
  /** Hangs up (`_lembas/terminal/close`): SIGHUP, SIGKILL after a grace period. Output still flows. */
  close(): void;
  /** The sink is gone (the link closed): output is dropped from now on, and the terminal hung up. */
  dispose(): void;
  /**
   * The shell's exit status (128 + signal number for a signal death), once the last output frame
   * has been handed to the sink and the rc wrapper's files are removed.
   */
  readonly exited: Promise<number>;
  stats(): OutputStats;
};

/**
 * What a service process hands down that a login shell should not inherit: systemd's and
 * launchd's per-service variables, and the shell bookkeeping of whatever started the service.
 */
const NOT_INHERITED = new Set([
  "INVOCATION_ID",
  "JOURNAL_STREAM",
  "NOTIFY_SOCKET",
  "LISTEN_FDS",
  "LISTEN_PID",
  "LISTEN_FDNAMES",
  "WATCHDOG_PID",
  "WATCHDOG_USEC",
  "MANAGERPID",
  "SYSTEMD_EXEC_PID",
  "XPC_SERVICE_NAME",
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
]);

/** Starts the person's login shell in a PTY of cols × rows in cwd. Throws when it cannot start. */
export function openTerminal(opts: TerminalOptions): Terminal {
  const base = opts.env ?? process.env;
  const shell = opts.shell ?? detectShell(base, readPasswdShell());
  const env = terminalEnv(base);
  const launch = shellLaunch({ shell, integration: opts.integration, home: env.HOME ?? homedir(), env });
  let pty: ReturnType<typeof openPty>;
  try {
    pty = openPty({ ...launch, cwd: opts.cwd, cols: opts.cols, rows: opts.rows });
  } catch (error) {
    launch.cleanup();
    throw error;
  }
  const output = createOutput({ sink: opts.sink, flow: pty, onOverflow: () => pty.close() });
  pty.onData((bytes) => output.push(bytes));

  const exited = (async () => {
    const status = await pty.exited;
    await output.end();
    launch.cleanup();
    return status;
  })();

  return {
    pid: pty.pid,
    shell: shell.kind,
    integration: launch.integration,
    exited,
    input: (data) => pty.write(data),
    resize: (cols, rows) => pty.resize(cols, rows),
    drained: () => output.drained(),
    close: () => pty.hangup(),
    dispose() {
      output.discard();
      pty.hangup();
    },
    stats: () => output.stats(),
  };
}

/** The shell's environment: `base` without a service's own variables, with TERM for xterm.js. */
export function terminalEnv(base: Env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !NOT_INHERITED.has(key)) env[key] = value;
  }
  env.TERM = "xterm-256color";
  env.COLORTERM = "truecolor";
  return env;
}
