import { ReputeError, TransportError } from '../core/errors.js';

/** Clock and sleep used by {@link retrying}; injected so tests can run the retry budget on a fake clock. */
export interface RetryingTime {
  /** Current time in ms. */
  readonly now: () => number;
  /** Waits `ms` milliseconds. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** Wall-clock time: `Date.now` and `setTimeout`. */
export const wallTime: RetryingTime = {
  now: Date.now,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Calls `attempt` until it resolves, backing off 100, 200, 400, ... ms (capped at 1 s) while the next try still
 * starts within `budgetMs` of the first; then throws a {@link TransportError} naming `what` and the last error.
 * An attempt that throws a {@link ReputeError} has diagnosed a failure that waiting cannot fix (a payload
 * over the server's limit, a consumer bound to another subject): it is rethrown at once, not retried.
 */
export async function retrying<T>(
  budgetMs: number,
  attempt: () => Promise<T>,
  what: string,
  time: RetryingTime = wallTime,
): Promise<T> {
  const deadline = time.now() + budgetMs;
  let delay = 100;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof ReputeError) throw error;
      if (time.now() + delay > deadline) {
        throw new TransportError(
          `could not ${what} within ${budgetMs} ms: ${(error as Error).message}; check that nats-server is running with -js`,
          { cause: error },
        );
      }
      await time.sleep(delay);
      delay = Math.min(delay * 2, 1000);
    }
  }
}
