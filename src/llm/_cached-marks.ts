import type { LanguageModelV3Usage } from '@ai-sdk/provider';

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

/** What the ledger middleware booked for one generate result (the same numbers as its ledger entry). */
export interface BookedUsage {
  /** Integer ≥ 0. */
  readonly inputTokens: number;
  /** Integer ≥ 0. */
  readonly outputTokens: number;
  /** Cost as booked, ≥ 0; 0 when cached. */
  readonly cost: number;
  readonly cached: boolean;
  /** Provider attempts the call made, retries included; 0 when cached. */
  readonly attempts: number;
}

// Booked usage per result, so a caller of the plumbed model can report exactly what the ledger
// wrote without a second price computation that could drift from it.
const bookedResults = new WeakMap<object, BookedUsage>();

/** Attaches the ledger's booking to a result (the outermost ledger's booking wins). */
export function markBooked<T extends object>(result: T, usage: BookedUsage): T {
  bookedResults.set(result, usage);
  return result;
}

/** The ledger's booking of a result, or `undefined` when no ledger middleware saw it. */
export function bookedUsage(result: object): BookedUsage | undefined {
  return bookedResults.get(result);
}

// Errors raised after the provider call they belong to succeeded (the reply could not be cached):
// the call was paid for, so the ledger books it before passing the error on.
const paidFailures = new WeakMap<object, { readonly usage: LanguageModelV3Usage | undefined }>();

/**
 * Marks an error as raised after a successful (paid) provider call. `usage` is the call's usage
 * for a generate call; a stream's ledger already saw it in the finish part.
 */
export function markPaidFailure<T extends object>(error: T, usage?: LanguageModelV3Usage): T {
  paidFailures.set(error, { usage });
  return error;
}

/** The paid call an error was raised after, or `undefined` when the error is a failed call. */
export function paidFailure(error: unknown): { readonly usage: LanguageModelV3Usage | undefined } | undefined {
  return typeof error === 'object' && error !== null ? paidFailures.get(error) : undefined;
}
