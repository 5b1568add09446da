import { InvalidArgumentError } from '../errors.js';
import type { AnswerKindHandler, AnswerScore } from './answer-handler.js';
import { answerKinds, type AnswerKind } from './answer-kind.js';
import { choiceAnswerKind } from './choice-answer.js';
import { codeAnswerKind } from './code-answer.js';
import { exactAnswerKind } from './exact-answer.js';
import { literalAnswerKind } from './literal-answer.js';
import { literalZeroevalAnswerKind } from './literal-zeroeval-answer.js';
import { labelsAnswerKind, parseLabelSet, sampleF1 } from './labels-answer.js';
import { mathAnswerKind } from './math-answer.js';
import { numberAnswerKind } from './number-answer.js';
import { numberZeroevalAnswerKind } from './number-zeroeval-answer.js';

const handlers: Readonly<Record<AnswerKind, AnswerKindHandler>> = {
  number: numberAnswerKind,
  math: mathAnswerKind,
  choice: choiceAnswerKind,
  exact: exactAnswerKind,
  labels: labelsAnswerKind,
  code: codeAnswerKind,
  literal: literalAnswerKind,
  'literal-zeroeval': literalZeroevalAnswerKind,
  'number-zeroeval': numberZeroevalAnswerKind,
};

/**
 * The default handler of an answer kind; throws {@link InvalidArgumentError} for unknown kinds.
 *
 * @example
 * answerKindHandler('math').canonicalKey('\\frac{3}{4}'); // '0.75'
 */
export function answerKindHandler(kind: AnswerKind): AnswerKindHandler {
  const handler = Object.hasOwn(handlers, kind) ? handlers[kind] : undefined;
  if (handler === undefined) {
    throw new InvalidArgumentError({
      parameter: 'kind',
      value: kind,
      message: `unknown answer kind ${JSON.stringify(kind)}; use one of ${answerKinds.join(', ')}`,
    });
  }
  return handler;
}

/**
 * Pulls the final answer out of raw model text and returns its canonical key, or `null` when no
 * answer can be parsed (count it as wrong).
 *
 * @example
 * extractAnswer('math', '... so the answer is $\\boxed{\\dfrac{3}{4}}$.'); // '0.75'
 * extractAnswer('choice', 'The answer is (B).'); // 'B'
 * extractAnswer('number', 'She pays $1,200.\n#### 1200'); // '1200'
 */
export function extractAnswer(kind: AnswerKind, text: string): string | null {
  return answerKindHandler(kind).extract(text);
}

/**
 * Canonical key of an already isolated answer (e.g. a reference answer), or `null` when unusable.
 *
 * @example
 * canonicalAnswerKey('labels', 'joy, Anger'); // 'anger,joy'
 */
export function canonicalAnswerKey(kind: AnswerKind, answer: string): string | null {
  return answerKindHandler(kind).canonicalKey(answer);
}

/**
 * Whether two isolated answers (raw answers or keys) are equivalent under the kind's rules.
 *
 * @example
 * answersEquivalent('math', '\\frac{3}{4}', '0.75'); // true
 * answersEquivalent('math', '(3,-1)', '(-1,3)'); // false
 */
export function answersEquivalent(kind: AnswerKind, a: string, b: string): boolean {
  return answerKindHandler(kind).equivalent(a, b);
}

/**
 * Grades an answer (an extracted key or raw isolated answer; `null` = unparseable, always wrong)
 * against a reference in the kind's raw form. `labels` also reports sample F1. `code` is graded
 * by running tests, which needs a sandbox: use `scoreCodeAnswer` from the evaluation sandbox.
 *
 * @example
 * scoreAnswer('labels', 'joy,love', 'joy'); // { correct: false, f1: 0.667 }
 */
export function scoreAnswer(kind: AnswerKind, answer: string | null, reference: string): AnswerScore {
  if (kind === 'code') {
    throw new InvalidArgumentError({
      parameter: 'kind',
      value: kind,
      message:
        "code answers are graded by running their tests, not by comparing text; call scoreCodeAnswer({ text, test }) or runCodeTests({ code, test, language: 'python' }) from the evaluation sandbox",
    });
  }
  const handler = answerKindHandler(kind);
  if (kind === 'labels') {
    if (answer === null) return { correct: false, f1: 0 };
    return {
      correct: handler.equivalent(answer, reference),
      f1: sampleF1(parseLabelSet(answer), parseLabelSet(reference)),
    };
  }
  if (answer === null) return { correct: false };
  return { correct: handler.equivalent(answer, reference) };
}
