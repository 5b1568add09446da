// Internal: reading the token counts a provider reports, so that the ledger, the cache and
// createCompletion agree on which counts are real and what is booked for the others.
import type { LanguageModelV3Usage } from '@ai-sdk/provider';
import { ProviderError } from '../core/errors.js';

/**
 * Largest token count one call may report, per direction (input or output): 100 000 000. The
 * largest context windows hold about 10 000 000 tokens, so anything above is a broken report, and
 * booking it would swamp every sum and budget that reads the ledger.
 */
export const maxReportedTokens = 100_000_000;

/** A reported count that is not a token count. */
export interface UsageProblem {
  /** `usage.inputTokens.total` or `usage.outputTokens.total`. */
  readonly field: string;
  /** The value the provider reported. */
  readonly value: unknown;
}

/** The counts to book for a reply, and the reported counts that were refused. */
export interface TokenUsage {
  /** Integer in [0, {@link maxReportedTokens}]; 0 when not reported or refused. */
  readonly inputTokens: number;
  /** Integer in [0, {@link maxReportedTokens}]; 0 when not reported or refused. */
  readonly outputTokens: number;
  /** One entry per refused count; empty when every count is valid or not reported. */
  readonly problems: readonly UsageProblem[];
  /**
   * True when both counts were reported and valid; false when one is missing or refused, so that
   * the 0 booked for it is not taken for a true zero.
   */
  readonly reported: boolean;
}

/**
 * Reads a reply's token counts: an integer in [0, {@link maxReportedTokens}] is taken as is, a count
 * the provider did not report (`undefined`) is 0 with `reported` false, and anything else (negative, NaN, ±Infinity,
 * fractional, too large, not a number) is 0 plus a {@link UsageProblem} naming it.
 */
export function readTokenUsage(usage: LanguageModelV3Usage | undefined): TokenUsage {
  const problems: UsageProblem[] = [];
  let missing = 0;
  const count = (field: string, value: unknown): number => {
    if (value === undefined || value === null) {
      missing += 1;
      return 0;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxReportedTokens) return value;
    problems.push({ field, value });
    return 0;
  };
  const inputTokens = count('usage.inputTokens.total', usage?.inputTokens?.total);
  const outputTokens = count('usage.outputTokens.total', usage?.outputTokens?.total);
  return { inputTokens, outputTokens, problems, reported: missing === 0 && problems.length === 0 };
}

/**
 * The error of a reply whose usage held counts that are no token counts: a {@link ProviderError}
 * with reason `malformed`, naming each field and value and what was done with the call.
 */
export function usageError({
  provider,
  modelId,
  problems,
  seenBy,
  attempts = 1,
}: {
  provider: string;
  modelId: string;
  problems: readonly UsageProblem[];
  /** Provider attempts the call made (retries included). @default 1 */
  attempts?: number;
  /** `ledger`: the call was booked with 0 for each refused count; `completion`: a bare model's reply is refused. */
  seenBy: 'ledger' | 'completion';
}): ProviderError {
  const listed = problems.map(({ field, value }) => `${field} = ${showValue(value)}`).join(' and ');
  const zeros = problems
    .map(({ field }) => `0 ${field.startsWith('usage.input') ? 'input' : 'output'} tokens`)
    .join(' and ');
  const outcome =
    seenBy === 'ledger'
      ? `the call was booked in the ledger with ${zeros} (its cost priced from the counts booked), marked failed with its usage unreported, and its reply was not cached`
      : 'the reply is refused, since its usage and cost cannot be reported';
  return new ProviderError({
    provider,
    attempts,
    reason: 'malformed',
    message: `${provider} model ${JSON.stringify(modelId)} reported ${listed}, which is not a token count (an integer in [0, ${maxReportedTokens}]); ${outcome}; check the usage the endpoint reports, or report it to the provider`,
  });
}

function showValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
