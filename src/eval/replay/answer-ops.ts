import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { KeyScore } from './types.js';

/**
 * The answer-kind operations the replay harness needs: canonical keys for grouping, equivalence for
 * payload checks, and scoring against a reference. The default comes from `core/answers`.
 */
export interface AnswerOps {
  /** Canonical answer key of a recorded answer, or `null` when it does not parse. */
  canonical(kind: AnswerKind, raw: string): string | null;
  /** Whether two answers are equivalent under the kind's rule. */
  equivalent(kind: AnswerKind, left: string, right: string): boolean;
  /** Exact match and sample F1 of an answer key against a reference. */
  score(kind: AnswerKind, key: string | null, reference: string): KeyScore;
}
