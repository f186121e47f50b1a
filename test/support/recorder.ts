/**
 * An append-only list whose items a test can wait for. Shared by the scripted model and the
 * simulated instance; every wait has a timeout, so a test fails with a sentence, never hangs.
 */

/**
 * Default time a test peer waits for something before failing: long, as a wait costs nothing when
 * the thing comes, and on a loaded machine (two test files at once on two cores) 5 s was not enough.
 */
export const DEFAULT_WAIT_MS = 15_000;

interface Waiter<T> {
  from: number;
  predicate: (item: T) => boolean;
  resolve: (index: number) => void;
  reject: (error: Error) => void;
}

/** An append-only list of `T` with waits on its future (and past) items. */
export class Recorder<T> {
  /** Every item, in the order pushed. */
  readonly items: T[] = [];
  private readonly waiters = new Set<Waiter<T>>();
  private failure: Error | null = null;

  /** Appends an item and wakes whoever waits for one like it. */
  push(item: T): void {
    const index = this.items.push(item) - 1;
    for (const waiter of this.waiters) {
      if (index >= waiter.from && waiter.predicate(item)) waiter.resolve(index);
    }
  }

  /**
   * Resolves with the index of the first item at or after `from` that passes `predicate`,
   * looking at the items already here first.
   * @param what how the timeout error names the awaited item
   * @param context called on timeout, to add what did arrive to the error
   */
  waitForIndex(
    predicate: (item: T) => boolean,
    opts: { timeoutMs?: number; from?: number; what: string; context?: () => string },
  ): Promise<number> {
    const from = opts.from ?? 0;
    for (let i = from; i < this.items.length; i++) {
      const item = this.items[i];
      if (item !== undefined && predicate(item)) return Promise.resolve(i);
    }
    if (this.failure) return quiet(Promise.reject(this.failure));
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    return quiet(
      new Promise<number>((resolve, reject) => {
        const waiter: Waiter<T> = {
          from,
          predicate,
          resolve: (index) => settle(() => resolve(index)),
          reject: (error) => settle(() => reject(error)),
        };
        const timer = setTimeout(() => {
          const extra = opts.context ? ` (${opts.context()})` : "";
          waiter.reject(new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what}${extra}`));
        }, timeoutMs);
        const settle = (finish: () => void): void => {
          if (!this.waiters.delete(waiter)) return;
          clearTimeout(timer);
          finish();
        };
        this.waiters.add(waiter);
      }),
    );
  }

  /** Resolves with the first item at or after `from` that passes `predicate`. */
  waitFor(
    predicate: (item: T) => boolean,
    opts: { timeoutMs?: number; from?: number; what: string; context?: () => string },
  ): Promise<T> {
    return quiet(
      this.waitForIndex(predicate, opts).then((index) => {
        const item = this.items[index];
        if (item === undefined) throw new Error(`recorder lost item ${index}`);
        return item;
      }),
    );
  }

  /** Resolves with a copy of the items once at least `n` are here. */
  waitForCount(n: number, opts: { timeoutMs?: number; what: string }): Promise<T[]> {
    const ready = this.items.length >= n
      ? Promise.resolve(0)
      : this.waitForIndex(() => true, { ...opts, from: n - 1, context: () => `got ${this.items.length}` });
    return quiet(ready.then(() => this.items.slice()));
  }

  /** Fails every current and future wait that is not already satisfied (on close). */
  failAll(error: Error): void {
    this.failure = error;
    for (const waiter of [...this.waiters]) waiter.reject(error);
  }
}

/**
 * Marks a promise as handled and returns it: a test that awaits it still sees the rejection,
 * but one it abandoned (a wait that timed out after the test failed, a request cut short by a
 * close) does not surface later as an unhandled rejection in some other test.
 */
export function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** Sleeps `ms`, or less when `signal` aborts first (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
