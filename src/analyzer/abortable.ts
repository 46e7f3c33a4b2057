/**
 * Waiting under an abort signal: the wait ends when the signal aborts, whatever it waited for
 * (a render's browser and contexts, a name lookup).
 */

/**
 * `promise`'s outcome, or a rejection with `signal`'s reason as soon as it aborts (then the
 * promise goes on by itself: a caller that gives up on something it must release releases it
 * when it settles). Without a signal, `promise` itself.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** An abort signal that aborts with `reason()` after `ms`, or with `parent`'s reason; `clear` stops its timer. */
export function deadlineSignal(
  ms: number,
  reason: () => Error,
  parent?: AbortSignal,
): { signal: AbortSignal; clear: () => void } {
  const own = new AbortController();
  const timer = setTimeout(() => own.abort(reason()), ms);
  return {
    signal: parent ? AbortSignal.any([parent, own.signal]) : own.signal,
    clear: () => clearTimeout(timer),
  };
}
