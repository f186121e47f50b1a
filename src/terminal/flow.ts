import { openTtyFlow, type TtyFlow } from "./tcflow.ts";

/**
 * Pausing a PTY child's output, since Bun cannot stop reading the PTY (shared/PERF.md).
 * First choice: tcflow(TCOOFF) on the slave side (tcflow.ts) — immediate, mode-independent.
 * Fallback, where that cannot be had: XOFF written to the master, which the tty honours only with
 * IXON set and acts on late (0.03–30 MB): a raw-mode child (IXON off) is lent IXON for the
 * pause and gets its modes back on resume; keys typed meanwhile (IXANY, a ^Q) restart output, so
 * the pause is asserted again after each write. The fallback assumes the default ^S/^Q characters.
 */

/** termios c_iflag bit for XON/XOFF output flow control (its value differs between Linux and macOS). */
const IXON = process.platform === "darwin" ? 0x200 : 0o2000;
const XOFF = "\x13";
const XON = "\x11";

/** The part of Bun's Terminal the fallback uses. */
export type FlowTerminal = { readonly closed: boolean; inputFlags: number; write(data: string): number };

/** Pauses and resumes one PTY's child. */
export type PtyFlow = {
  pause(): void;
  resume(): void;
  /** After bytes were written to the child: undo what they may have undone of a pause. */
  afterInput(): void;
  /** Lets go of what pausing held (the child is gone). */
  close(): void;
};

/**
 * Flow control for the child `pid` in `term`; the way to pause is found at the first pause.
 * `xoffOnly` skips tcflow (to test the fallback).
 */
export function createPtyFlow(term: FlowTerminal, pid: number, xoffOnly = false): PtyFlow {
  let tty: TtyFlow | null | undefined = xoffOnly ? null : undefined;
  let paused = false;
  const xoff = createXoff(term);

  const stop = (): void => {
    if (tty === undefined) tty = openTtyFlow(pid);
    if (tty?.stop()) return;
    xoff.stop();
  };

  return {
    pause() {
      paused = true;
      stop();
    },
    resume() {
      if (!paused) return;
      paused = false;
      if (tty?.start()) return;
      xoff.start();
    },
    afterInput() {
      if (paused && !tty) xoff.stop();
    },
    close() {
      tty?.close();
      tty = null;
    },
  };
}

/** The XOFF/XON fallback, lending IXON to a raw-mode child while paused. */
function createXoff(term: FlowTerminal): { stop(): void; start(): void } {
  /** The child's input flags before IXON was lent to it, or null when it had IXON itself. */
  let lent: number | null = null;
  let stopped = false;
  return {
    stop() {
      if (term.closed) return;
      stopped = true;
      const flags = term.inputFlags;
      if ((flags & IXON) === 0) {
        lent = flags;
        term.inputFlags = flags | IXON;
      }
      term.write(XOFF);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      const before = lent;
      lent = null;
      if (term.closed) return;
      const flags = term.inputFlags;
      // Taking back the IXON we lent restarts output by itself (a ^Q then would reach the child as a key).
      if (before !== null && flags === (before | IXON)) {
        term.inputFlags = before;
        return;
      }
      // IXON off now means the child turned it off itself, which restarted output.
      if ((flags & IXON) !== 0) term.write(XON);
    },
  };
}
