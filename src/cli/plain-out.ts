import type { FileSink } from "bun";

/**
 * stdout and stderr for `lembas run`, written without Node's streams: the first touch of
 * `process.stdout`, `process.stderr` or `process.stdin` (even of `.isTTY`) loads them, about 18 ms
 * and 9 MB of a one-shot's start (bench/START.md). A writer is Bun's own sink on the descriptor,
 * flushed at every write so that the answer shows as it streams and the two outputs keep their order.
 */
export type PlainOut = {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Waits until all that was written has reached the descriptor (a full pipe may hold some back). */
  drained(): Promise<void>;
};

type TtyBinding = { isTTY(fd: number): boolean };

/** Whether descriptor `fd` (0, 1 or 2) is a terminal, asked of Bun's tty binding rather than node:tty (which loads the streams too). */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  try {
    const binding = (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap");
    return binding.isTTY(fd);
  } catch {
    return (require("node:tty") as typeof import("node:tty")).isatty(fd);
  }
}

const made = new Map<1 | 2, PlainOut>();

/** The one writer of stdout (1) or stderr (2) in this process. */
export function plainOut(fd: 1 | 2): PlainOut {
  const known = made.get(fd);
  if (known) return known;
  const sink: FileSink = (fd === 1 ? Bun.stdout : Bun.stderr).writer();
  let pending: Promise<unknown> = Promise.resolve();
  const out: PlainOut = {
    isTTY: isTerminal(fd),
    write(text) {
      sink.write(text);
      const flushed = sink.flush();
      if (flushed instanceof Promise) pending = pending.then(() => flushed);
    },
    async drained() {
      await pending;
      await sink.flush();
    },
  };
  made.set(fd, out);
  return out;
}
