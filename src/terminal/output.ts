/**
 * A terminal's output on its way to a consumer (the link): coalesced into frames, flow-controlled.
 *
 * THE POLICY
 * - Frames: what the PTY gives is gathered and handed on as one frame once FRAME_BYTES (64 KiB)
 *   wait, or FLUSH_MS (4 ms) after the oldest waiting byte came, whichever is first. A frame is
 *   never larger than FRAME_BYTES.
 * - Nothing is handed on while the consumer's own buffer (its bufferedAmount(), e.g. a
 *   WebSocket's) is at HIGH_WATER or more: frames wait here, and go on, oldest first, when the
 *   consumer says drained() or a poll every POLL_MS finds room (a WebSocket client has no drain
 *   event).
 * - Backlog = bytes waiting here + the consumer's bufferedAmount(). At HIGH_WATER (1 MiB) the
 *   child is paused at its tty; at LOW_WATER (256 KiB) or less it is resumed. Pausing (flow.ts) is
 *   tcflow(TCOOFF) on the PTY's slave side: immediate, raw-mode children included, and only what
 *   was already in the kernel (tens of KiB) still comes. Where tcflow cannot be had it is XOFF,
 *   which the kernel acts on late (measured 0.03–30 MB, worst on a loaded machine) and which a
 *   raw-mode child (IXON off: vim, tmux) gets by being lent IXON for the pause. Whatever comes
 *   while paused waits here; each further REASSERT_BYTES that come send the pause again.
 * - No byte is ever dropped, and the bytes waiting here are bounded by CAP_BYTES (32 MiB). Passing
 *   it means the child could not be paused in time (seen only with the XOFF fallback on a loaded
 *   2-core machine): onOverflow() is called once, and the owner closes the PTY at once
 *   (terminal.ts): nothing more is read, the child is hung up, and what was read is still
 *   delivered whole.
 * - So a terminal holds at most CAP_BYTES plus one read (Bun reads up to ~150 KiB at a time) here,
 *   and the consumer at most HIGH_WATER plus one frame. With tcflow, a 200 MB flood read at 25 MB/s
 *   held at most ~200 KiB here (test/terminal/flood.test.ts).
 */

/** The consumer of the frames: the link sends each as `_lembas/terminal/output`. */
export type OutputSink = {
  /** Takes one frame; the frame is the sink's to keep. */
  send(frame: Uint8Array): void;
  /** Bytes the consumer has taken but not passed on yet (a WebSocket's bufferedAmount). */
  bufferedAmount(): number;
};

/** What pauses the producer (a Pty). */
export type FlowTarget = { pauseOutput(): void; resumeOutput(): void };

export type OutputLimits = {
  frameBytes: number;
  flushMs: number;
  highWater: number;
  lowWater: number;
  reassertBytes: number;
  capBytes: number;
  pollMs: number;
};

/** The limits the policy above states. */
export const OUTPUT_LIMITS: Readonly<OutputLimits> = {
  frameBytes: 64 * 1024,
  flushMs: 4,
  highWater: 1024 * 1024,
  lowWater: 256 * 1024,
  reassertBytes: 4 * 1024 * 1024,
  capBytes: 32 * 1024 * 1024,
  pollMs: 10,
};

export type OutputOptions = {
  sink: OutputSink;
  flow: FlowTarget;
  /** Called once when the bytes waiting here pass the cap: the owner should close the PTY. */
  onOverflow(): void;
  limits?: Partial<OutputLimits>;
};

/** Figures for tests and benchmarks. */
export type OutputStats = { held: number; maxHeld: number; pauses: number; paused: boolean; frames: number; bytes: number };

/** One terminal's output pipeline. */
export type Output = {
  /** Bytes read from the PTY. */
  push(bytes: Uint8Array): void;
  /** The consumer's buffer went down: hand on what waits. */
  drained(): void;
  /** Hands on everything still waiting (frames as the consumer takes them); resolves once nothing waits. */
  end(): Promise<void>;
  /** The consumer is gone: what waits is dropped, later bytes too, and a paused child is resumed. */
  discard(): void;
  stats(): OutputStats;
};

/** Creates the output pipeline for one terminal (see the policy at the top of this file). */
export function createOutput(opts: OutputOptions): Output {
  const limits: OutputLimits = { ...OUTPUT_LIMITS, ...opts.limits };
  const { sink, flow } = opts;
  const queue: Uint8Array[] = [];
  let queued = 0;
  let maxHeld = 0;
  let paused = false;
  let pausedAtHeld = 0;
  let pauses = 0;
  let frames = 0;
  let bytes = 0;
  let overflowed = false;
  let discarded = false;
  let flushTimer: Timer | null = null;
  let pollTimer: Timer | null = null;
  const ending: Array<() => void> = [];

  const takeFrame = (): Uint8Array => {
    const size = Math.min(queued, limits.frameBytes);
    const first = queue[0];
    if (first && first.length === size) {
      queue.shift();
      queued -= size;
      return first;
    }
    const frame = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const chunk = queue[0];
      if (!chunk) break;
      const n = Math.min(chunk.length, size - filled);
      frame.set(n === chunk.length ? chunk : chunk.subarray(0, n), filled);
      filled += n;
      if (n === chunk.length) queue.shift();
      else queue[0] = chunk.subarray(n);
    }
    queued -= filled;
    return frame;
  };

  const checkFlow = (): void => {
    const backlog = queued + sink.bufferedAmount();
    if (!paused && backlog >= limits.highWater) {
      paused = true;
      pausedAtHeld = queued;
      pauses++;
      flow.pauseOutput();
    } else if (paused && queued >= pausedAtHeld + limits.reassertBytes) {
      pausedAtHeld = queued;
      flow.pauseOutput();
    } else if (paused && backlog <= limits.lowWater) {
      paused = false;
      flow.resumeOutput();
    }
    if (!overflowed && queued > limits.capBytes) {
      overflowed = true;
      opts.onOverflow();
    }
  };

  const settle = (): void => {
    if (queued > 0 || ending.length === 0) return;
    for (const resolve of ending.splice(0)) resolve();
  };

  /** Hands frames on while the consumer has room; partial frames only when `all`. */
  const pump = (all: boolean): void => {
    if (discarded) return;
    while (queued > 0 && sink.bufferedAmount() < limits.highWater) {
      if (!all && queued < limits.frameBytes) break;
      const frame = takeFrame();
      frames++;
      bytes += frame.length;
      sink.send(frame);
    }
    if (queued === 0 && flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    checkFlow();
    updatePoll();
    settle();
  };

  const updatePoll = (): void => {
    const needed = !discarded && (queued > 0 || paused);
    if (needed && !pollTimer) {
      pollTimer = setInterval(() => pump(true), limits.pollMs);
      pollTimer.unref();
    }
    if (!needed && pollTimer) {
      clearInterval(pollTimer);
      pollTimer = null;
    }
  };

  return {
    push(chunk) {
      if (discarded || chunk.length === 0) return;
      queue.push(chunk);
      queued += chunk.length;
      if (queued > maxHeld) maxHeld = queued;
      pump(false);
      if (queued > 0 && !flushTimer) {
        flushTimer = setTimeout(() => {
          flushTimer = null;
          pump(true);
        }, limits.flushMs);
      }
    },
    drained: () => pump(true),
    end() {
      if (discarded || queued === 0) return Promise.resolve();
      const done = new Promise<void>((resolve) => ending.push(resolve));
      pump(true);
      return done;
    },
    discard() {
      if (discarded) return;
      discarded = true;
      queue.length = 0;
      queued = 0;
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      updatePoll();
      if (paused) {
        paused = false;
        flow.resumeOutput();
      }
      for (const resolve of ending.splice(0)) resolve();
    },
    stats: () => ({ held: queued, maxHeld, pauses, paused, frames, bytes }),
  };
}
