/**
 * Waits for `work` as one of several that share it: settles with `work`, or with `cancelled()` (its
 * value, or what it throws) as soon as `signal` aborts; the work goes on for the others. The
 * listener is removed either way.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, cancelled: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      try {
        resolve(cancelled());
      } catch (error) {
        reject(error);
      }
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
