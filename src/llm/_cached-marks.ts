// Results served from the record/replay cache, so the ledger can book them as cached without
// adding any field to what the caller sees.
const cachedResults = new WeakSet<object>();

/** Marks a generate or stream result as served from the cache. */
export function markCached<T extends object>(result: T): T {
  cachedResults.add(result);
  return result;
}

/** Whether a result was served from the cache. */
export function isCached(result: object): boolean {
  return cachedResults.has(result);
}
