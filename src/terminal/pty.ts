import { constants } from "node:os";
import { createPtyFlow } from "./flow.ts";

/**
 * A pseudo-terminal with a child in it: the one place that knows Bun's native PTY
 * (`Bun.spawn({ terminal })`). The child gets its own session with the PTY as its controlling
 * terminal, so `tty`, job control, SIGWINCH and SIGHUP behave as in any terminal emulator.
 *
 * Traps handled here (shared/PERF.md): the PTY's own exit callback says 1 on a normal exit, so the
 * status comes from the process; Bun cannot pause reading, so the child's output is paused at the
 * tty instead ({@link Pty.pauseOutput}, flow.ts).
 */

/** Between SIGHUP and SIGKILL to the shell's process group when hanging up. */
const HANGUP_GRACE_MS = 2_000;
/** After the child exits, how long output still in flight may take to arrive before the PTY is closed. */
const EOF_GRACE_MS = 200;

export type PtyOptions = {
  /** The program and its arguments. */
  command: string[];
  /** argv[0] as the program sees it, when it differs from command[0] (a login shell's "-bash"). */
  argv0?: string;
  cwd: string;
  /** The child's whole environment (nothing is inherited). */
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** Pause output with XOFF only, never tcflow (flow.ts's fallback; for tests). */
  xoffOnly?: boolean;
};

/** A running child in its own PTY. */
export type Pty = {
  /** The child's pid; also its process group and session id. */
  readonly pid: number;
  /** Sends keystrokes (or any bytes) to the child. */
  write(data: Uint8Array | string): void;
  /** Sets the window size; the child's foreground process group gets SIGWINCH. */
  resize(cols: number, rows: number): void;
  /** The output callback; output that came before it was set is handed to it at once, in order. */
  onData(cb: (bytes: Uint8Array) => void): void;
  /**
   * Stops the child's output at its tty (its writes block; see flow.ts for how). Calling it again
   * while paused asserts the pause again.
   */
  pauseOutput(): void;
  /** Lets the child write again after {@link pauseOutput}. */
  resumeOutput(): void;
  /**
   * Hangs up: SIGHUP (and SIGCONT) to the child's process group, SIGKILL to it if the child still
   * lives after a grace period. Output is still read (and still flow-controlled) until it is gone.
   */
  hangup(): void;
  /**
   * Closes the PTY at once (nothing more is read; the kernel hangs up the session), then SIGKILL
   * to the child's process group if the child still lives after the grace period.
   */
  close(): void;
  /**
   * The child's exit status — its exit code, or 128 + the signal number for a signal death —
   * once the child has exited and its output has been read (all onData calls come before).
   */
  readonly exited: Promise<number>;
};

/** Starts `command` in a new PTY of cols × rows. Throws when the program cannot be started. */
export function openPty(opts: PtyOptions): Pty {
  let listener: ((bytes: Uint8Array) => void) | null = null;
  const early: Uint8Array[] = [];
  let sawEof!: () => void;
  const eof = new Promise<void>((resolve) => (sawEof = resolve));
  const proc = Bun.spawn(opts.command, {
    ...(opts.argv0 === undefined ? {} : { argv0: opts.argv0 }),
    cwd: opts.cwd,
    env: opts.env,
    terminal: {
      cols: opts.cols,
      rows: opts.rows,
      data(_term, bytes) {
        if (listener) listener(bytes);
        else early.push(bytes);
      },
      exit: () => sawEof(),
    },
  });
  const term = proc.terminal;
  if (!term) throw new Error("Bun gave the process no terminal.");
  const pid = proc.pid;
  const flow = createPtyFlow(term, pid, opts.xoffOnly);
  let killTimer: Timer | null = null;
  const scheduleKill = (): void => {
    killTimer ??= setTimeout(() => signalGroup(pid, "SIGKILL"), HANGUP_GRACE_MS);
  };

  const exited = (async () => {
    await proc.exited;
    const status = exitStatus(proc);
    await Promise.race([eof, Bun.sleep(EOF_GRACE_MS)]);
    if (killTimer) clearTimeout(killTimer);
    flow.close();
    if (!term.closed) term.close();
    return status;
  })();

  return {
    pid,
    exited,
    write(data) {
      if (term.closed) return;
      term.write(data);
      flow.afterInput();
    },
    resize(cols, rows) {
      if (!term.closed) term.resize(cols, rows);
    },
    onData(cb) {
      listener = cb;
      for (const bytes of early.splice(0)) cb(bytes);
    },
    pauseOutput: () => flow.pause(),
    resumeOutput: () => flow.resume(),
    hangup() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      signalGroup(pid, "SIGHUP");
      signalGroup(pid, "SIGCONT");
      scheduleKill();
    },
    close() {
      if (!term.closed) term.close();
      sawEof();
      if (proc.exitCode === null && proc.signalCode === null) scheduleKill();
    },
  };
}

/** The exit code, or 128 + the signal number when a signal ended the process. */
function exitStatus(proc: { exitCode: number | null; signalCode: NodeJS.Signals | number | null }): number {
  if (typeof proc.signalCode === "number") return 128 + proc.signalCode;
  if (proc.signalCode !== null) return 128 + (constants.signals[proc.signalCode] ?? 0);
  return proc.exitCode ?? 0;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
