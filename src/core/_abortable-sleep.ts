// Internal: the one setTimeout-based wait shared by the retry middleware, the scripted model and the
// simulated agent (a timer, not I/O, so it lives in core where every layer may import it).

/**
 * Resolves after `ms` milliseconds, or rejects with `signal.reason` as soon as `signal` aborts
 * (at once if it already has).
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
