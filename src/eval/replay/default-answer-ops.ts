import { answersEquivalent, canonicalAnswerKey, scoreAnswer } from '../../core/answers/answers.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { AnswerOps } from './answer-ops.js';
import type { KeyScore } from './types.js';

/**
 * The replay harness's answer operations from `core/answers`: canonical keys for recorded answers,
 * the kind's equivalence, and its scoring (`code` answers, which need a sandbox, fall back to
 * normalised-text equality: replay reads recorded outcomes and never runs code).
 */
export function createDefaultAnswerOps(): AnswerOps {
  return {
    canonical: (kind: AnswerKind, raw: string) => canonicalAnswerKey(kind, raw),
    equivalent: (kind: AnswerKind, left: string, right: string) => answersEquivalent(kind, left, right),
    score(kind: AnswerKind, key: string | null, reference: string): KeyScore {
      if (key === null) return { exact: 0, f1: 0 };
      if (kind === 'code') {
        const exact = answersEquivalent(kind, key, reference) ? 1 : 0;
        return { exact, f1: exact };
      }
      const score = scoreAnswer(kind, key, reference);
      const exact = score.correct ? 1 : 0;
      return { exact, f1: score.f1 ?? exact };
    },
  };
}
