/**
 * Waits for `work` as one of several that share it: settles with `work`, or with `cancelled()` as
 * soon as `signal` aborts (the work goes on for the others). The listener is removed either way.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, cancelled: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => resolve(cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
