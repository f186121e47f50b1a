/** A wait that can be cut short: `for(ms)` resolves after `ms`, or at once when `wake()` is called (a stop). */
export class Pause {
  private cut: (() => void) | null = null;

  for(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.cut = done;
    });
  }

  wake(): void {
    this.cut?.();
  }
}

/** Waits for `work` to settle, at most `ms`; the timer is cleared either way, so it holds no process up. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: Timer | undefined;
  try {
    await Promise.race([
      work.then(
        () => {},
        () => {},
      ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
