/** Start-up helpers of bin/stack.ts. */

/** Rejects as soon as `signal` aborts, so a long start-up step (a catalog build) can be left. */
export function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('start-up aborted'));
    const onAbort = () => reject(new Error('start-up aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
