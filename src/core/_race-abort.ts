// Internal: lets a caller stop waiting for work that does not watch its AbortSignal as soon as the
// signal aborts: a run whose caller's `finally` (stopping child processes, a private nats-server) must
// run before the CLI exits, or a cached LLM call that waits on an identical request in flight.

/** Swallows a rejection nobody waits for any more. */
export const ignore = (): void => {};

/**
 * Settles like `work`, or rejects with `signal.reason` as soon as `signal` aborts (what `work` does
 * afterwards is ignored). Without a signal it returns `work` itself.
 *
 * @example
 * const result = await raceAbort(runRapsScenario('adversarial', parameters), signal);
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(ignore);
      reject(signal.reason);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
