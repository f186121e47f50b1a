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
