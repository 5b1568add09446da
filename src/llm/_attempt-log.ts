// Internal: what the retry middleware saw of one call's attempts, handed to the ledger middleware
// outside it. Keyed by the call's options object, which the AI SDK's wrapLanguageModel passes
// unchanged through every middleware without a `transformParams` (the ledger, cache and retry
// middleware have none), so no field is added to what the provider or the cache key sees.

/** The attempts of one call, as the retry middleware counted them. */
export interface AttemptLog {
  /** Provider attempts started, ≥ 1 once the first one starts. */
  attempts: number;
  /**
   * Failed attempts the provider may have billed without reporting usage: a timeout or a caller's
   * abort while the request was in flight, or a reply outside the protocol (the provider answered).
   */
  unreportedFailures: number;
  /**
   * True while the current attempt waits for a concurrency slot (set by the concurrency middleware):
   * an abort then cancels a request that was never sent, so nothing was billed.
   */
  queued: boolean;
}

const logs = new WeakMap<object, AttemptLog>();

/** Starts (or restarts) the attempt log of a call; the retry middleware calls it once per call. */
export function startAttemptLog(params: object): AttemptLog {
  const log: AttemptLog = { attempts: 0, unreportedFailures: 0, queued: false };
  logs.set(params, log);
  return log;
}

/** The attempt log of a call, removed so that a later call with the same options starts afresh. */
export function takeAttemptLog(params: object): AttemptLog | undefined {
  const log = logs.get(params);
  logs.delete(params);
  return log;
}

/** The attempt log of a call, left in place (for the middleware between retries and the provider). */
export function attemptLogOf(params: object): AttemptLog | undefined {
  return logs.get(params);
}
