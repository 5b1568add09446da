import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors.js';
import { answerKinds, type AnswerKind } from './answer-kind.js';
import { answerKindHandler, answersEquivalent, canonicalAnswerKey, extractAnswer, scoreAnswer } from './answers.js';

describe('answer dispatcher', () => {
  it('has a handler for every kind', () => {
    for (const kind of answerKinds) expect(answerKindHandler(kind).kind).toBe(kind);
  });

  it('refuses unknown kinds with a typed error naming the kind', () => {
    expect(() => extractAnswer('float' as AnswerKind, '1')).toThrow(InvalidArgumentError);
    expect(() => extractAnswer('float' as AnswerKind, '1')).toThrow(/unknown answer kind "float"/);
    expect(() => answerKindHandler('toString' as AnswerKind)).toThrow(InvalidArgumentError);
  });

  it('routes extraction, keys and equivalence to the kind', () => {
    expect(extractAnswer('math', 'so $\\boxed{\\dfrac{3}{4}}$')).toBe('0.75');
    expect(extractAnswer('choice', 'The answer is (B).')).toBe('B');
    expect(canonicalAnswerKey('labels', 'joy, Anger')).toBe('anger,joy');
    expect(answersEquivalent('math', '\\frac{3}{4}', '0.75')).toBe(true);
    expect(answersEquivalent('math', '(3,-1)', '(-1,3)')).toBe(false);
    expect(answersEquivalent('number', '$1,000', '1000')).toBe(true);
  });

  it('scores answers against references; null is wrong', () => {
    expect(scoreAnswer('math', '0.75', '\\frac{3}{4}')).toEqual({ correct: true });
    expect(scoreAnswer('choice', null, 'A')).toEqual({ correct: false });
    // {joy, love} vs {joy}: F1 = 2·1/(2+1) = 2/3, not an exact match.
    const labels = scoreAnswer('labels', 'joy,love', 'joy');
    expect(labels.correct).toBe(false);
    expect(labels.f1).toBeCloseTo(2 / 3, 12);
    expect(scoreAnswer('labels', null, 'joy')).toEqual({ correct: false, f1: 0 });
  });

  it('sends code grading to the sandbox with a clear error', () => {
    expect(() => scoreAnswer('code', 'print(1)', 'assert True')).toThrow(/runCodeTests/);
  });
});
